#!/bin/bash
# Call 8: last.py: early draw, the tree's late draw and a draw one key tile earlier, on the
# 128x128 builds where call 7 read the tree behind, and D=128 S=4k (192x64), bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/8-last; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 450 python -u $S/last.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short|FAIL" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 8-last.tgz 8-last
