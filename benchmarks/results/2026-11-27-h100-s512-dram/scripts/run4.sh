#!/bin/bash
# Call 4: stage 1 on 128-row blocks with deeper rings. Stage 1's 64-row blocks are L2-bound here
# (call 3: 671 MB L2-to-SM, 83% of L2's peak); 128-row blocks read K/V from L2 half as often, and
# v49 measured them only with two stages (1.11x slower), i.e. half the tiles in flight per SM
# (two CTAs of 8 warps, by registers). Three or four stages restore eight tiles in flight.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/4; mkdir -p $R
G='flashcore-gluon'
P="flashcore,$G[block_m=128,block_n=32,num_warps=8,num_stages=2],$G[block_m=128,block_n=32,num_warps=8,num_stages=3]"
P="$P,$G[block_m=128,block_n=32,num_warps=8,num_stages=4],$G[block_m=128,block_n=64,num_warps=8,num_stages=2]"
P="$P,$G[block_m=128,block_n=64,num_warps=8,num_stages=3],sdpa-cudnn"
for dt in bf16 fp16; do
  timeout 250 python -m flashcore.cli bench --shape 32,16,512,128 --causal on --dtype $dt --providers "$P" \
    --mode graph --no-plots --out $R/s512-$dt > $R/s512-$dt.log 2>&1
  echo "$dt rc=$?"; grep -E "✓|✗" $R/s512-$dt.log | head -4
done
