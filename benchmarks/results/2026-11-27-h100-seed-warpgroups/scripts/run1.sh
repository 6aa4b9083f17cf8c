#!/bin/bash
# Call 12: install CuTe DSL (wheels carried by calls 1-11 and this one: .peers/w, s00a-s04b, h05), then the checks, paired rounds and traces.
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/cutlass ] || [ -d /tmp/site/nvidia_cutlass_dsl ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 300 python $S/tiles.py > $OUT/tiles.out 2>&1
timeout 150 python $S/trace.py > $OUT/trace.out 2>&1
grep -c " ok " $OUT/tiles.log; grep -E "FAIL|checks:" $OUT/tiles.log | head; grep -E "^B" $OUT/tiles.log; grep -v "^ *$" $OUT/trace.log; tail -3 $OUT/tiles.out $OUT/trace.out
