#!/bin/bash
# Call 11: the order with one KV group at a time only where the tail holds at most 12 KV heads
# (ONE_GROUP_TAIL), chunks of `chunk` heads before the tail elsewhere. The order's GPU test,
# then order.py (tree against 65f52d2's chunks) on cells of both kinds.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/11-rule; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
timeout 100 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "causal_order" \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 260 python -u $S/order.py 8,32,32,2048,64 4,32,32,4096,64 4,16,16,4096,128 \
  2,32,32,8192,64 8,16,16,2048,128 > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
OUT=$R DTYPE=fp16 LONG_MS=800 timeout 80 python -u $S/order.py 8,32,32,2048,64 > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|short" $R/console-fp16.log | cut -c1-200
cd $OUT && tar czf 11-rule.tgz 11-rule
