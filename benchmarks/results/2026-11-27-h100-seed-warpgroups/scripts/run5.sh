#!/bin/bash
# Call 60 (wheels carried by calls 49-59 and this one, as for run2.sh): L2 prefetch before the
# PDL wait at the seed, then traces, then the cute GPU tier's reference tests with it.
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 200 python $S/prefetch.py > $OUT/prefetch.out 2>&1
TRACE_SET=prefetch timeout 100 python $S/trace.py > $OUT/trace.out 2>&1
timeout 200 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_cute_fwd.py -k "knobs or matches_the_reference" > $OUT/gpu-cute.log 2>&1
grep -c ": ok" $OUT/prefetch.log; grep -E "FAIL|checks:|^B" $OUT/prefetch.log; grep -v "^ *$" $OUT/traceprefetch.log; tail -2 $OUT/gpu-cute.log; tail -3 $OUT/prefetch.out $OUT/trace.out
