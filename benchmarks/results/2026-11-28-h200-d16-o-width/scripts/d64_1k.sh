#!/bin/bash
# Call 17: D=64 full rows at S=1k, the one standard cell under the best peer in call 15 (fp16,
# 0.987 of cuDNN; bf16 1.009). Auto runs stage 1 there (one warpgroup, 64x128, two stages);
# the persistent 192x128 read 0.92 on the H100 in session 13, before max-free, packed sums and
# masked-free tiles. Variants of auto's config against cuDNN, both dtypes, each checked against
# the fp64 reference (a variant equal to auto or refused by constraints is skipped).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
W3="block_m=192,num_warps=12,num_stages=3,warp_specialize=1,pingpong=1,persistent=1"
mkdir -p $OUT/d64
for dt in fp16 bf16; do
  OUT=$OUT/d64 DTYPE=$dt PEERS=cudnn LONG_MS=${LONG_MS:-100} NAME=d64-$dt BASE=auto \
    VARIANTS="w3:$W3 w3sk:$W3,stream_k=1 w3ps:$W3,packed_sums=2 w2:block_m=128,num_warps=8,num_stages=2,warp_specialize=1,pingpong=1,persistent=1 s3:num_stages=3 bn64:block_n=64 ps2:packed_sums=2" \
    D16_CELLS="16,32,32,1024,64,0 32,32,32,512,64,0" \
    timeout ${KT:-220} python $V > $OUT/d64/d64-$dt.log 2>&1
  echo "$dt rc=$?"
  grep -E "^B|short" $OUT/d64/d64-$dt.log | cut -c1-112
done
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
