#!/usr/bin/env bash
# Device call 3: GQA decode through `flashcore bench` (auto dispatch, every cell checked) against
# SDPA's cuDNN and flash backends; then more key splits for the packed sub-wave cells.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
S="--shape 1,32,1,128,8,8192 --shape 1,32,1,128,8,32768 --shape 4,32,1,128,8,8192 --shape 8,32,1,128,8,4096"
S="$S --shape 32,32,1,128,8,2048 --shape 1,64,1,128,8,8192 --shape 1,32,1,64,4,8192 --shape 1,8,1,128,8,8192"
python -m flashcore.cli bench $S --causal off --mode both --providers flashcore,sdpa-cudnn,sdpa-flash \
  --out $OUT/bench-gqa-decode --no-plots --time-limit 300 2>&1 | tail -30 | tee $OUT/bench.log
P='flashcore-triton[block_m=16,block_n=64,num_warps=4,num_stages=3,pack_gqa=True,split_kv='
python -m flashcore.cli bench --shape 1,32,1,64,4,8192 --shape 1,32,1,128,8,8192 --causal off --mode graph \
  --providers "flashcore,${P}8],${P}16],${P}32],sdpa-cudnn" --out $OUT/bench-splits --no-plots --sets 2 \
  --time-limit 200 2>&1 | tail -20 | tee $OUT/splits.log
