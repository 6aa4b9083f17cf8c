#!/bin/bash
# Call 5: stage1_lags' D=16 rule (three warpgroups on 192x128, persistent, turns, packed sums,
# from 1k keys full and past 1k causal) through the API, against backend="hopper" and stage 1
# (s1: the config auto took before), on call 4's three cells and three it did not read (S=1536
# full, S=3000 causal at B*H=256, and S=512 full, which keeps stage 1: w3ps there). bf16, fp16.
# Then the GPU test of the rule (auto's pick, checked against the fp64 reference).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/confirm; mkdir -p $R
W3=block_m=192,num_warps=12,num_stages=3,warp_specialize=1,pingpong=1,persistent=1
S1=block_m=64,num_warps=4,num_stages=2,warp_specialize=0,pingpong=0,persistent=0,packed_sums=0
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS= LONG_MS=${LONG_MS:-150} NAME=confirm VARIANTS="s1:$S1 w3ps:$W3,packed_sums=2" \
  D16_CELLS="16,128,128,1024,16,0 4,128,128,4096,16,1 8,64,64,2048,16,1 8,64,64,1536,16,0 4,64,64,3000,16,1 32,64,64,512,16,0" \
    timeout ${KT:-200} python benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py > $R/confirm-$dt.log 2>&1
  echo "confirm $dt rc=$?"
  grep -h -A4 "^B" $R/confirm-$dt.log | grep -v "^--" | cut -c1-28,100-160
done
timeout 150 python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "stage1_lags" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -3 $R/gpu-tests.log
