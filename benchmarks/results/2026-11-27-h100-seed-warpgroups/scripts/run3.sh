#!/bin/bash
# Call 36 (CuTe DSL and FA4 wheels carried by calls 25-35 and this one, as for run2.sh):
# the partials folded in as they come, against the previous merge, then traces.
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 200 python $S/merge.py > $OUT/merge.out 2>&1
TRACE_SET=merge timeout 100 python $S/trace.py > $OUT/trace.out 2>&1
grep -c ": ok" $OUT/merge.log; grep -E "FAIL|checks:|^B2" $OUT/merge.log; grep -v "^ *$" $OUT/tracemerge.log; tail -3 $OUT/merge.out $OUT/trace.out
