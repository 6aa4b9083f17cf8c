#!/bin/bash
# Call 3: is D=128 S=512 causal bound by L2, not DRAM? Stage 1's 64-row blocks read each K/V tile
# from L2 once per block (a head's K/V ~4.5 times), cuDNN's 128-row blocks about half as often.
# Nsight Compute's L2 throughput and bytes for auto (stage 1), the 128x128 ping-pong persistent
# build (GLUON_CONFIG) and cuDNN.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-s512-dram/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,lts__t_bytes.sum,lts__throughput.avg.pct_of_peak_sustained_elapsed,lts__t_sectors_srcunit_tex.sum,dram__throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,l1tex__m_xbar2l1tex_read_bytes.sum,sm__pipe_tensor_op_gmma_cycles_active.avg.pct_of_peak_sustained_elapsed,smsp__cycles_active.avg.pct_of_peak_sustained_elapsed
for p in flashcore pp cudnn; do
  prov=$p; [ $p = pp ] && prov=flashcore
  PROVIDER=$prov PP=$([ $p = pp ] && echo 1 || echo 0) timeout 120 $NCU --metrics $M -k regex:"_gluon_fwd|cudnn|fmha|sm90|sdpa" \
    --launch-skip 3 --launch-count 1 --csv python $S/ncu_cell.py > $R/ncu-$p.csv 2> $R/ncu-$p.err
  echo "== $p"; grep -E '"(gpu__|dram__|lts__|l1tex__|sm__|smsp__)' $R/ncu-$p.csv | awk -F'","' '{printf "  %s %s = %s\n", $(NF-2), $(NF-1), $NF}'
done
