#!/bin/bash
# Call 72 (wheels carried by calls 61-71 and this one, as for run2.sh): keys_first at the seed,
# then the cute GPU tier's reference and knob tests with it.
set -u
mkdir -p /tmp/peers && cp .peers/h05/* /tmp/peers/
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
S=benchmarks/results/2026-11-27-h100-seed-warpgroups/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 200 python $S/keys_first.py > $OUT/keys_first.out 2>&1
timeout 200 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_cute_fwd.py -k "knobs or matches_the_reference" > $OUT/gpu-cute.log 2>&1
grep -c ": ok" $OUT/keys_first.log; grep -E "FAIL|checks:|^B" $OUT/keys_first.log; tail -2 $OUT/gpu-cute.log; tail -3 $OUT/keys_first.out
