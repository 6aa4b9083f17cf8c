#!/bin/bash
# Call 1: v52's hang test on the GPU, then stress.py (fp16, 20 s each) on auto's config in
# every build with turns: D=128 causal 513-1024 keys (two warpgroups), full 1k (ping-pong) and
# 4k (192x64), causal 4k (192x64, three stages); D=96 (O in parts) causal 1k / 4k, full 4k;
# D=64 full 4k and causal 16k (192x128). rc 124 = the cell hung.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1-stress; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-turn-stress/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 150 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k never_hang > $R/hang-test.log 2>&1
echo "hang test rc=$?: $(tail -1 $R/hang-test.log)"
for c in 1,16,16,1024,128 0,16,16,1024,128 0,4,16,4096,128 1,4,16,4096,128 1,16,16,1024,96 1,4,16,4096,96 \
         0,4,16,4096,96 0,4,16,4096,64 1,1,16,16384,64; do
  f=$R/${c//,/-}.log
  CAUSAL=${c%%,*} CELL=${c#*,} DTYPE=fp16 timeout 45 python -u $S/stress.py 20 > $f 2>&1
  echo "causal=${c%%,*} ${c#*,} rc=$? $(head -1 $f | cut -c1-150) | $(tail -1 $f)"
done
