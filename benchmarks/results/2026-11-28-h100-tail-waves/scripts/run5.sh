#!/bin/bash
# Call 30: GQA's three tail waves (tail_waves, group > 1 on the D=128 build's rows of at most 1k
# keys): the GQA preset's 32/8 S=1k cell through the API (bf16, fp16) and other groups (32/16,
# 32/4) with three waves, against the rule; then the tail's GPU tests at the tree.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tail-waves/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=500 API=1 WAVES_CELLS="16,32,8,1024,128 16,32,16,1024,128 16,32,4,1024,128" \
  WAVES_LIST="3;3;3" timeout 200 python -u $S/waves.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|   [ar0-9c]" $R/console-bf16.log | cut -c1-200
OUT=$R DTYPE=fp16 PEERS=cudnn LONG_MS=500 API=1 WAVES_CELLS="16,32,8,1024,128" WAVES_LIST="3" \
  timeout 100 python -u $S/waves.py > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|   [ar0-9c]" $R/console-fp16.log | cut -c1-200
timeout 150 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_gluon_fwd.py tests/test_api.py -m gpu \
  -k "tail or persistent_causal_order or gqa" > $R/gpu-tests.log 2>&1
tail -2 $R/gpu-tests.log
tar czf $OUT/run5.tgz -C $OUT 6
