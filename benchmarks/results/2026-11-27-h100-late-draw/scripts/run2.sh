#!/bin/bash
# Call 2: draw.py. Long windows (each variant checked first): fp16 on D=128 S=4k / 8k causal,
# bf16 on GQA 32/8 S=4k, D=64 S=8k, D=128 S=2k and S=16k causal.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2-draw; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=fp16 LONG_MS=800 timeout 150 python -u $S/draw.py 4,16,16,4096,128 2,16,16,8192,128 \
  > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|short|FAIL" $R/console-fp16.log | cut -c1-200
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 300 python -u $S/draw.py 4,32,8,4096,128 2,32,32,8192,64 8,16,16,2048,128 \
  1,16,16,16384,128 > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short|FAIL" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 2-draw.tgz 2-draw
