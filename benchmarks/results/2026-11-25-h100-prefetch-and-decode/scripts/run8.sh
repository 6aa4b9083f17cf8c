#!/usr/bin/env bash
# Device call 8: with the chunked merge, do more key splits pay on sub-wave decode? Fixed configs
# in flashcore bench (graph mode, checked), 8 / 16 / 32 splits.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
C='flashcore-triton[block_m=16,block_n=64,num_warps=4,num_stages=3,pack_gqa=True,split_kv='
python -m flashcore.cli bench --shape 1,8,1,128,8,8192 --shape 1,32,1,128,8,8192 --shape 1,32,1,64,4,8192 \
  --shape 1,16,1,128,16,4096 --shape 1,32,1,64,8,4096 --causal off --mode graph \
  --providers "flashcore,${C}8],${C}16],${C}32],${C}64],sdpa-cudnn" --out $OUT/bench-splits --no-plots --sets 2 \
  --time-limit 300 2>&1 | tail -3 | tee $OUT/splits.log
