#!/bin/bash
# Call 2 of a pair (call 1 copied .peers/a to /tmp/peers): install CuTe DSL, then fma_exps.py.
set -u
source .peers/b/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH
S=benchmarks/results/2026-11-27-h100-seed-fma-exps/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 400 python $S/fma_exps.py > $OUT/fma_exps.out 2>&1
echo "rc=$?"; grep -c ": ok" $OUT/fma_exps.log; grep -E "FAIL|checks:|^B" $OUT/fma_exps.log; tail -3 $OUT/fma_exps.out
