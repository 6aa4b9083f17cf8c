#!/bin/bash
# Call 7: the order's GPU tests (the persistent causal orders, the plans, auto's causal choices),
# then order.py in fp16 (four cells) and bf16 (the other three).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7-order; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
timeout 120 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py \
  -k "causal_order or on_causal or causal_plan_pieces or plan_runs_read" > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep -E "FAILED" $R/tests.log | head -5
OUT=$R DTYPE=fp16 LONG_MS=800 timeout 230 python -u $S/order.py 4,16,16,4096,128 2,16,16,8192,128 4,32,8,4096,128 \
  2,32,32,8192,64 > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|short" $R/console-fp16.log | cut -c1-200
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 200 python -u $S/order.py 1,16,16,16384,128 8,16,16,2048,128 4,32,32,4096,64 \
  > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 7-order.tgz 7-order
