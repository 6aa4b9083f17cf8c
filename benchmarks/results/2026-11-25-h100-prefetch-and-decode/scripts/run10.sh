#!/usr/bin/env bash
# Device call 10, the shipped form: every LSE in one round trip, partial tiles four at a time on
# sm_90 (merge_chunk), and 4-tile splits for 16-row blocks, against the serial merge (scripts/triton_fwd_base.py
# = 918846f's, not committed); flashcore bench on decode cells against SDPA; the GPU tier.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
D=benchmarks/results/2026-11-25-h100-prefetch-and-decode/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
BASE=$D/triton_fwd_base.py ROUNDS=21 CASES="[(1, 8, 8, 1, 8192, 128, False), (1, 32, 8, 1, 8192, 128, False),
(1, 32, 4, 1, 8192, 64, False), (1, 32, 8, 1, 4096, 64, False), (4, 32, 8, 1, 8192, 128, False), (1, 8, 8, 16, 4096, 64, False)]" \
  python $D/decode_ab.py 2>&1 | grep -v "Warning\|return F\." | tee $OUT/merge.log
S="--shape 1,8,1,128,8,8192 --shape 1,32,1,128,8,8192 --shape 1,32,1,128,8,32768 --shape 4,32,1,128,8,8192"
S="$S --shape 8,32,1,128,8,4096 --shape 32,32,1,128,8,2048 --shape 1,64,1,128,8,8192 --shape 1,32,1,64,4,8192 --shape 1,32,1,64,8,4096"
python -m flashcore.cli bench $S --causal off --mode both --providers flashcore,sdpa-cudnn,sdpa-flash \
  --out $OUT/bench-decode --no-plots --time-limit 300 2>&1 | tail -3 | tee $OUT/bench.log
C='flashcore-triton[block_m=16,block_n=64,num_warps=4,num_stages=3,pack_gqa=True,split_kv='
python -m flashcore.cli bench --shape 1,32,1,64,4,8192 --shape 1,32,1,64,8,4096 --shape 1,8,1,64,8,4096 --causal off \
  --mode graph --providers "flashcore,${C}8],${C}16],${C}32],sdpa-cudnn" --out $OUT/bench-splits --no-plots --sets 2 \
  --time-limit 200 2>&1 | tail -3 | tee $OUT/splits.log
timeout 420 python -m pytest -q -n 8 tests/ -p no:cacheprovider 2>&1 | tail -4 | tee $OUT/gpu-tier.log
