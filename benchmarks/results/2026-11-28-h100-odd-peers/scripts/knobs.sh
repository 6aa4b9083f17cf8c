#!/bin/bash
# The odd preset's causal S=3000 cells (B=2 H=8), where v47 had FA4 ahead: auto against other
# configs of its build (session 52's knobs.py: each checked against the fp64 reference; auto's
# time over each, alone LONG_MS / 30 ms paired), with cuDNN and FA4. bash knobs.sh <dtype>
set -u
DT=$1
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export DTYPE=$DT PEERS=cudnn,fa4 LONG_MS=${LONG_MS:-600} API=1
R=$OUT/knobs-$DT; mkdir -p $R; export OUT=$R
KNOB_NAME=d80-96 KNOB_CELLS="2,8,8,3000,80,1 2,8,8,3000,96,1" \
KNOB_VARIANTS="w3:block_m=192,block_n=64,num_warps=12,num_stages=3,packed_sums=2 plan:stream_k=1 w3plan:block_m=192,block_n=64,num_warps=12,num_stages=3,packed_sums=2,stream_k=1 t1:causal_tail=1 t2:causal_tail=2 ps0:packed_sums=0" \
  timeout ${KT:-250} python $K > $R/d80-96.log 2>&1; echo "d80-96 rc=$?"; tail -22 $R/d80-96.log
KNOB_NAME=d32 KNOB_CELLS="2,8,8,3000,32,1" \
KNOB_VARIANTS="nsk:stream_k=0 s2:num_stages=2 n64:block_n=64 m128:block_m=128,num_warps=8 nsk-t1:stream_k=0,causal_tail=1 s1:block_m=64,num_warps=4,num_stages=2,warp_specialize=0,pingpong=0,persistent=0,lazy_rescale=0,stream_k=0" \
  timeout ${KT:-200} python $K > $R/d32.log 2>&1; echo "d32 rc=$?"; tail -12 $R/d32.log
KNOB_NAME=full-d80-96 KNOB_CELLS="2,8,8,3000,80,0 2,8,8,3000,96,0" \
KNOB_VARIANTS="sk:stream_k=1 s3:num_stages=3 m128:block_m=128,block_n=128,num_warps=8 m128sk:block_m=128,block_n=128,num_warps=8,stream_k=1" \
  timeout ${KT:-200} python $K > $R/full.log 2>&1; echo "full rc=$?"; tail -14 $R/full.log
tar czf $R.tgz -C $(dirname $R) knobs-$DT
