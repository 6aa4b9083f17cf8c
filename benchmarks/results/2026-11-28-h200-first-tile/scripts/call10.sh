#!/bin/bash
# Session 59, call 10: the pairs builds' knobs re-read after the first-tile change (bc6b922
# changed only the causal plan pieces' per-item code; v67's lesson: rules on the
# three-consumer builds can turn with per-item code). Variants of auto's config, each checked
# against the fp64 reference, bf16: masked-free tiles on / off, packed sums on / off, two ring
# stages instead of three (a variant equal to auto is skipped).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
mkdir -p $OUT/knobs
OUT=$OUT/knobs DTYPE=${DT:-bf16} PEERS= LONG_MS=${LONG_MS:-100} NAME=knobs BASE=auto \
  VARIANTS="mf0:masked_free=0 mf1:masked_free=1 ps0:packed_sums=0 ps2:packed_sums=2 s2:num_stages=2" \
  D16_CELLS="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,16,16,3000,32,1 2,8,8,3000,48,1 2,8,8,3000,64,1" \
  timeout ${KT:-400} python $V > $OUT/knobs/knobs.log 2>&1
echo "rc=$?"
grep -E "^B|short" $OUT/knobs/knobs.log | cut -c1-120 | tail -60
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
