#!/bin/bash
# Call 7: early.py: the v38 producer (draw a whole item ahead) against the tree's late draw on the
# other drawn causal builds (128x128 with turns, 192x64 at D=80, 192x128 at D=48), bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7-early; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 400 python -u $S/early.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short|FAIL" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 7-early.tgz 7-early
