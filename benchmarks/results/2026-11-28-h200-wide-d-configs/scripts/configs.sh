#!/bin/bash
# After benchmarks/split_peers.py's five carry calls (carry .peers/carry/install here): session
# 52's knobs.py (auto's config against variants, each checked against the fp64 reference first,
# with cuDNN and FA4 in the same windows) on the cells where FA4 led the odd preset on the H200
# (v71: D=96 full S=3000 0.947, D=80 full 0.973, D=256 causal 0.992) and on the cells of the
# rules those variants would change (D=80 / 96 full from 2k keys run 192x64, ``_parts_config``).
set -u
R=$OUT/configs; mkdir -p $R
source .peers/carry/install/install.sh > $R/install.log 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export OUT=$R DTYPE=${DT:-bf16} PEERS=cudnn,fa4 LONG_MS=${LONG_MS:-300}
KNOB_NAME=wide KNOB_CELLS=${WIDE_CELLS:-"2,8,8,3000,96,0 2,8,8,3000,80,0 4,16,16,4096,96,0 4,16,16,2048,80,0"} \
  KNOB_VARIANTS="s3:num_stages=3 sk:stream_k=1 t128:block_m=128,num_warps=8,block_n=128 t128sk:block_m=128,num_warps=8,block_n=128,stream_k=1" \
  timeout ${KT_WIDE:-330} python $K > $R/wide.out 2>&1
echo "wide rc=$?"
KNOB_NAME=d256 KNOB_CELLS=${D256_CELLS:-"2,8,8,3000,256,1 2,8,8,1000,256,1"} \
  KNOB_VARIANTS="pp:pingpong=1 n32:block_n=32,num_stages=3 n32pp:block_n=32,num_stages=3,pingpong=1" \
  timeout ${KT_D256:-200} python $K > $R/d256.out 2>&1
echo "d256 rc=$?"
grep -h "^B\|^   \|FAILED\|Error\|error" $R/wide.out $R/d256.out | cut -c1-200 | tail -60
cd $OUT && tar czf configs.tgz configs
