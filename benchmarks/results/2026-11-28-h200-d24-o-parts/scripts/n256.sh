#!/bin/bash
# Call 2: 256-key tiles on two consumer warpgroups (128x256) at D=16 / 32, S=3000, against auto
# (192x128, three warpgroups) and a 128x128 control; each variant checked against the fp64
# reference first (variants.py). Offline: 128x256 spill-free on full rows and on causal rows
# with fp32 sums (packed sums spill 64-336 B), 192x256 fails in ptxas.
export PYTHONPATH=$PWD/src
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
mkdir -p $OUT/n256
OUT=$OUT/n256 DTYPE=bf16 PEERS= LONG_MS=150 NAME=n256 BASE=auto \
  VARIANTS="n256:block_m=128,num_warps=8,block_n=256,num_stages=2,packed_sums=0 w2:block_m=128,num_warps=8,num_stages=2,packed_sums=0" \
  D16_CELLS="2,8,8,3000,32,0 2,8,8,3000,16,0 2,8,8,3000,32,1 2,8,8,3000,16,1" timeout 200 python $V > $OUT/n256/n256.log 2>&1
echo rc=$?
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/gpu.csv
grep -v "^\s*$" $OUT/n256/n256.log | tail -n 24
