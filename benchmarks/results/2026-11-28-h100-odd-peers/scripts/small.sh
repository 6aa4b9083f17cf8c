#!/bin/bash
# Causal rows on small grids (under three 192-row items a CTA), where causal_three_warpgroups_pay
# keeps 128x128: auto against three warpgroups on 192x64 tiles, three stages, packed sums
# (w3: whole items drawn; w3plan: the causal plan's pieces), no peers. bash small.sh <dtype>
set -u
DT=$1
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export DTYPE=$DT PEERS= LONG_MS=${LONG_MS:-600}
R=$OUT/small-$DT; mkdir -p $R; export OUT=$R
W3=block_m=192,block_n=64,num_warps=12,num_stages=3,packed_sums=2,pingpong=1
KNOB_NAME=drawn KNOB_CELLS="${DRAWN_CELLS:-2,8,8,3000,128,1 2,8,8,3000,112,1 2,8,8,3000,72,1 2,8,8,3000,88,1 3,8,8,3000,80,1 4,8,8,3000,96,1}" \
KNOB_VARIANTS="w3:$W3" timeout ${KT1:-280} python $K > $R/drawn.log 2>&1; echo "drawn rc=$?"
KNOB_NAME=plan KNOB_CELLS="${PLAN_CELLS:-1,16,16,4096,96,1 1,16,16,4096,80,1 1,16,16,4096,128,1 2,8,8,2048,96,1 1,8,8,8192,96,1}" \
KNOB_VARIANTS="w3:$W3,stream_k=0 w3plan:$W3,stream_k=1" timeout ${KT2:-250} python $K > $R/plan.log 2>&1; echo "plan rc=$?"
grep -h "^B\|^   [a-z]" $R/drawn-*.log $R/plan-*.log | sed 's/  */ /g' | cut -c1-150
tar czf $R.tgz -C $(dirname $R) small-$DT
