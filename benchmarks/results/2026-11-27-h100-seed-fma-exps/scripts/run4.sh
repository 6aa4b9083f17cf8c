#!/bin/bash
# As run1.sh (CuTe DSL from /tmp/peers): captures.py: six captures each of 200- and 400-call graphs at
# B=2, each timed alone, with its outputs' addresses.
set -u
cp .peers/c_cu13.d07/* /tmp/peers/
[ -d /tmp/site/nvidia_cutlass_dsl/cu13 ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-fma-exps/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 500 python $S/captures.py > $OUT/captures.out 2>&1
echo "rc=$?"; cat $OUT/captures.log; tail -3 $OUT/captures.out
