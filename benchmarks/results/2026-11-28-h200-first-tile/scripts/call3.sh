#!/bin/bash
# Session 59, call 3: four consumer warpgroups (patches/four_warpgroups.patch: block_m=256, a
# fourth consumer partition, 112 registers a thread). Offline, 256x64 tiles are spill-free at
# D=16-64 causal (stream-K pairs and drawn, both dtypes) and D=32 full; 256x128 spills 3.5-4 KB,
# D=64 full 256x64 576 B. At D=16-32 the exps' MUFU is half busy and the rest of a tile's
# time is the warpgroups' serial chain (v64, v67), so a fourth warpgroup in flight may hide
# more of it. Variants of auto's config, each checked against the fp64 reference, bf16:
# w4s2 / w4s3 (256x64, two / three stages) and t3n64 (three warpgroups on 192x64, to separate
# the tile width from the fourth warpgroup).
set -u
git apply benchmarks/results/2026-11-28-h200-first-tile/patches/four_warpgroups.patch || exit 1
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
mkdir -p $OUT/w4
OUT=$OUT/w4 DTYPE=${DT:-bf16} PEERS= LONG_MS=${LONG_MS:-100} NAME=w4 BASE=auto \
  VARIANTS="w4s2:block_m=256,num_warps=16,block_n=64,num_stages=2 w4s3:block_m=256,num_warps=16,block_n=64,num_stages=3 t3n64:block_n=64" \
  D16_CELLS="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 2,8,8,3000,48,1 2,8,8,3000,64,1 1,32,8,8192,32,1 1,32,8,8192,64,1 2,8,8,3000,32,0" \
  timeout ${KT:-480} python $V > $OUT/w4/w4.log 2>&1
echo "rc=$?"
grep -E "^B|short|FAIL|fail|Error" $OUT/w4/w4.log | tail -60
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
