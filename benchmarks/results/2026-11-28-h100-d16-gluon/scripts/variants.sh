#!/bin/bash
# Call 3: variants.py on D=16 and D=32, bf16, no peers. w3: the three-warpgroup 192x128 build
# (persistent, turns); w3sk: with stream-K; w3ps: with the packed sums (causal); t2: two
# warpgroups on 128x128 with turns, persistent; ws2: two warpgroups, not persistent; n64: 64x64.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/variants; mkdir -p $R
W3=block_m=192,num_warps=12,num_stages=3,warp_specialize=1,pingpong=1,persistent=1
OUT=$R DTYPE=${1:-bf16} PEERS= LONG_MS=${LONG_MS:-150} NAME=variants \
VARIANTS="w3:$W3 w3sk:$W3,stream_k=1 w3ps:$W3,packed_sums=2 t2:block_m=128,num_warps=8,num_stages=2,warp_specialize=1,pingpong=1,persistent=1 ws2:block_m=128,num_warps=8,num_stages=2,warp_specialize=1 n64:block_n=64" \
D16_CELLS="${CELLS_D:-16,128,128,1024,16,0 4,128,128,4096,16,1 8,64,64,2048,16,1 16,128,128,1024,32,0 4,128,128,4096,32,1 8,64,64,2048,32,1}" \
  timeout ${KT:-400} python benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py > $R/variants-${1:-bf16}.log 2>&1
echo "variants rc=$?"
grep -h -A9 "^B" $R/variants-${1:-bf16}.log | grep -v "^--" | cut -c1-100
