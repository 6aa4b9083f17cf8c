#!/bin/bash
# Call 1: waves.py, bf16: causal_tail 2 / 3 waves against the rule (about one wave) on the D=128
# build's causal rows of 1k keys at every head dim 72-120 the build takes, H * D ~ 2k, B=16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tail-waves/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=500 \
  WAVES_CELLS="16,16,16,1024,96 16,24,24,1024,80 16,28,28,1024,72 16,24,24,1024,88 16,20,20,1024,104 16,18,18,1024,112 16,16,16,1024,120" \
  WAVES_LIST="2,3;2,3;2,3;2,3;2,3;2,3;2,3" timeout 540 python -u $S/waves.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|   [r0-9c]" $R/console-bf16.log | cut -c1-200
tar czf $OUT/run1.tgz -C $OUT 1
