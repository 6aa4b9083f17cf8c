#!/usr/bin/env bash
# Device call 6: where sub-wave decode spends its time. ncu of the MHA and packed GQA decode
# against cuDNN, then a sweep of the portable kernel's ring depth, warps and tiles there.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
X=gpu__time_duration.sum,dram__bytes_read.sum,lts__t_bytes.sum,smsp__warp_issue_stalled_long_scoreboard_per_warp_active.pct,smsp__warp_issue_stalled_barrier_per_warp_active.pct,smsp__warp_issue_stalled_wait_per_warp_active.pct,smsp__warp_issue_stalled_math_pipe_throttle_per_warp_active.pct,smsp__warp_issue_stalled_short_scoreboard_per_warp_active.pct,sm__cycles_active.avg,sm__throughput.avg.pct_of_peak_sustained_elapsed
for s in 1,8,1,128,8,8192 1,32,1,128,8,8192; do
  timeout 200 python -m flashcore.cli profile --shape $s --provider flashcore,sdpa-cudnn --extra-metrics $X \
    --out $OUT/ncu-${s//,/_}.json 2>&1 | tail -40
done | tee $OUT/ncu.log
C='flashcore-triton[block_m=16,pack_gqa=True,split_kv=16,'
P="flashcore,sdpa-cudnn"
for cfg in "block_n=64,num_warps=4,num_stages=4" "block_n=64,num_warps=4,num_stages=5" "block_n=64,num_warps=2,num_stages=4" \
           "block_n=64,num_warps=8,num_stages=4" "block_n=128,num_warps=4,num_stages=2" "block_n=128,num_warps=8,num_stages=3" \
           "block_n=32,num_warps=4,num_stages=6"; do P="$P,$C$cfg]"; done
python -m flashcore.cli bench --shape 1,8,1,128,8,8192 --shape 1,32,1,128,8,8192 --shape 1,32,1,64,4,8192 \
  --causal off --mode graph --providers "$P" --out $OUT/bench-sweep --no-plots --sets 2 --time-limit 300 2>&1 \
  | tail -5 | tee $OUT/sweep.log
