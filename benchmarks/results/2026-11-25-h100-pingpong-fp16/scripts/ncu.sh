#!/bin/bash
# ncu source-level (SASS + stall samples) and details of one kernel launch: $1 = fc | np192 | p192 | fa4,
# (or cudnn) $2 = full | causal, $3 = S, $4 = D. Run from the repository root; writes to $OUT.
NCU=/usr/local/cuda/bin/ncu
HERE=$(dirname "$0")
name=$1_$2_$3_d$4
$NCU --section SourceCounters --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section MemoryWorkloadAnalysis \
  --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,sm__inst_executed_pipe_tensor_op_hmma.sum,smsp__inst_executed.sum,sm__cycles_active.avg,sm__cycles_elapsed.avg,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_sector_hit_rate.pct,lts__t_bytes.sum \
  -k regex:"_gluon_fwd|flash_attncute|cudnn|fmha|sm90" --launch-skip 2 --launch-count 1 -f -o $OUT/$name \
  python3 $HERE/one.py $1 $2 $3 $4 > $OUT/$name.log 2>&1
$NCU --import $OUT/$name.ncu-rep --page source --print-source sass --csv > $OUT/${name}_sass.csv 2>> $OUT/$name.log
$NCU --import $OUT/$name.ncu-rep --page details --csv > $OUT/${name}_details.csv 2>> $OUT/$name.log
rm -f $OUT/$name.ncu-rep
