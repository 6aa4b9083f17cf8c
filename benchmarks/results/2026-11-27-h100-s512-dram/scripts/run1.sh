#!/bin/bash
# Call 1: D=128 B=32 H=16 S=512 causal (0.98 of cuDNN in bf16). Nsight Compute on auto (stage 1,
# 64x32) and cuDNN: DRAM bytes and throughput, L2 hits, warps active. Then the bench on auto,
# stage-1 neighbours and the persistent causal builds as they stand after v51-v56, against cuDNN.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-s512-dram/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -c "import torch,triton;print(torch.__version__,triton.__version__,torch.backends.cudnn.version())" >> $R/gpu.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum,dram__bytes_write.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sector_hit_rate.pct,sm__warps_active.avg.pct_of_peak_sustained_active,sm__throughput.avg.pct_of_peak_sustained_elapsed,launch__registers_per_thread,launch__occupancy_limit_registers,launch__grid_size,launch__block_size,sm__cycles_elapsed.avg.per_second
for p in flashcore cudnn; do
  PROVIDER=$p timeout 120 $NCU --metrics $M -k regex:"_gluon_fwd|cudnn|fmha|sm90|sdpa" --launch-skip 3 --launch-count 1 \
    --csv python $S/ncu_cell.py > $R/ncu-$p.csv 2> $R/ncu-$p.err
  echo "== $p"; grep -E '"(gpu__|dram__|lts__|sm__|launch__)' $R/ncu-$p.csv | awk -F'","' '{printf "  %s %s = %s\n", $(NF-2), $(NF-1), $NF}'
done
G='flashcore-gluon'
P="flashcore,$G[block_m=64,block_n=32,num_warps=4,num_stages=1],$G[block_m=64,block_n=64,num_warps=4,num_stages=1]"
P="$P,$G[block_m=128,block_n=128,num_warps=8,num_stages=2,warp_specialize=1,pingpong=1,persistent=1]"
P="$P,$G[block_m=128,block_n=64,num_warps=8,num_stages=3,warp_specialize=1,pingpong=1,persistent=1,packed_sums=2]"
P="$P,$G[block_m=192,block_n=64,num_warps=12,num_stages=3,warp_specialize=1,pingpong=1,persistent=1,packed_sums=2]"
P="$P,sdpa-cudnn"
timeout 300 python -m flashcore.cli bench --shape 32,16,512,128 --causal on --dtype bf16 --providers "$P" \
  --mode graph --no-plots --out $R/s512-bf16 > $R/s512-bf16.log 2>&1
echo "bench rc=$?"; grep -vE "^\s*$" $R/s512-bf16.log | tail -14
