#!/bin/bash
# Call 1: half of Q in registers on the D=128 three-warpgroup builds. The GPU tests of the
# 192x64 tiles (full and causal, every reference case) and the hang test, then qsplit.py in
# bf16 (causal and full) and fp16 (causal only: the fp16 full build spills 16 B offline).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1-qsplit; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 170 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "$(cat $S/tests.k)" \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
OUT=$R DTYPE=bf16 LONG_MS=600 timeout 230 python -u $S/qsplit.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|full \(|short|long" $R/console-bf16.log | cut -c1-180
OUT=$R DTYPE=fp16 LONG_MS=600 timeout 150 python -u $S/qsplit.py 4,16,16,4096,128,1 2,16,16,8192,128,1 4,32,8,4096,128,1 \
  > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|full \(|short|long" $R/console-fp16.log | cut -c1-180
cd $OUT && tar czf 1-qsplit.tgz 1-qsplit
