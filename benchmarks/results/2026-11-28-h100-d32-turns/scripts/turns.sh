#!/bin/bash
# D=32 rows on few heads (B=2 H=8 S=3000), where FA4 leads (v63: causal 0.89, full 0.98), and
# D=64 S=8k: auto against its config without the ping-pong turns (FA4's SM90 D<=64 tile has
# none), and with the row sums from the packed P. Session 52's knobs.py: each variant checked
# against the fp64 reference; auto's time over each, alone LONG_MS / 30 ms paired.
# bash turns.sh <dtype>
set -u
DT=$1
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export DTYPE=$DT PEERS=${PEERS:-cudnn} LONG_MS=${LONG_MS:-600}
R=$OUT/turns-$DT; mkdir -p $R; export OUT=$R
KNOB_NAME=d32 KNOB_CELLS="2,8,8,3000,32,1 2,8,8,3000,32,0" \
KNOB_VARIANTS="pp0:pingpong=0 pp0nsk:pingpong=0,stream_k=0 ps2:packed_sums=2 pp0ps2:pingpong=0,packed_sums=2 pp0n64:pingpong=0,block_n=64 pp0m128:pingpong=0,block_m=128,num_warps=8" \
  timeout ${KT:-300} python $K > $R/d32.log 2>&1; echo "d32 rc=$?"; grep -v "^  *check\|passed" $R/d32.log | tail -22
KNOB_NAME=d64 KNOB_CELLS="2,32,32,8192,64,0 2,32,32,8192,64,1" \
KNOB_VARIANTS="pp0:pingpong=0 ps2:packed_sums=2 pp0ps2:pingpong=0,packed_sums=2" \
  timeout ${KT:-200} python $K > $R/d64.log 2>&1; echo "d64 rc=$?"; tail -14 $R/d64.log
tar czf $R.tgz -C $(dirname $R) turns-$DT
