#!/bin/bash
# Call 3: D=16's knobs re-read with O on its own 16 columns (363ac0a; v67's lesson: per-item
# code changes on the three-consumer builds can turn their rules). Variants of auto's config,
# each checked against the fp64 reference, bf16: masked-free tiles on / off, packed sums on /
# off, two ring stages, 64-key tiles, stream-K off (a variant equal to auto is skipped).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
mkdir -p $OUT/knobs
OUT=$OUT/knobs DTYPE=${DT:-bf16} PEERS= LONG_MS=${LONG_MS:-100} NAME=knobs BASE=auto \
  VARIANTS="mf0:masked_free=0 mf1:masked_free=1 ps0:packed_sums=0 ps2:packed_sums=2 s2:num_stages=2 bn64:block_n=64 sk0:stream_k=0" \
  D16_CELLS="2,8,8,3000,16,1 1,32,8,8192,16,1 8,64,64,2048,16,1 2,8,8,3000,16,0 16,128,128,1024,16,0" \
  timeout ${KT:-500} python $V > $OUT/knobs/knobs.log 2>&1
echo "rc=$?"
grep -E "^B|short" $OUT/knobs/knobs.log | cut -c1-120 | tail -60
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
