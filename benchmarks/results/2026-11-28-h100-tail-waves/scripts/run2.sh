#!/bin/bash
# Call 2: waves.py. bf16: D=80 / 96 at other grids of 1k keys and at 2k keys, D=128 MHA and GQA
# 32/8 at 1k and 2k keys; fp16: the dims preset's D=80 / 96 S=1k cells.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tail-waves/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=500 \
  WAVES_CELLS="4,32,32,1024,96 8,24,24,1024,80 8,16,16,2048,96 8,24,24,2048,80 16,16,16,1024,128 16,32,8,1024,128 8,32,8,2048,128" \
  WAVES_LIST="2;2;2;2;2;2,3,4;2,4" timeout 330 python -u $S/waves.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|   [r0-9c]" $R/console-bf16.log | cut -c1-200
OUT=$R DTYPE=fp16 PEERS=cudnn LONG_MS=500 WAVES_CELLS="16,16,16,1024,96 16,24,24,1024,80" \
  WAVES_LIST="2,3;2,3" timeout 150 python -u $S/waves.py > $R/console-fp16.log 2>&1
echo "fp16 rc=$?"; grep -E "causal \(|   [r0-9c]" $R/console-fp16.log | cut -c1-200
tar czf $OUT/run2.tgz -C $OUT 2
