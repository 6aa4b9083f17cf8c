#!/bin/bash
# ncu source-level (SASS + stall samples) and details of one kernel launch (the third): $1 = fc | ring |
# ringst | fa4, $2 = full | causal, $3 = S, $4 = D. Run from the repository root; writes to $OUT.
NCU=/usr/local/cuda/bin/ncu
HERE=$(dirname "$0")
name=$1_$2_$3_d$4
$NCU --section SourceCounters --section WarpStateStats --section InstructionStats --section ComputeWorkloadAnalysis \
  --section SpeedOfLight --section LaunchStats --section Occupancy --section SchedulerStats \
  --metrics sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active,smsp__inst_executed.sum,sm__cycles_elapsed.avg.per_second \
  -k regex:"_gluon_fwd|flash_attncute|flashcore" --launch-skip 2 --launch-count 1 -f -o $OUT/$name \
  python3 $HERE/one.py $1 $2 $3 $4 > $OUT/$name.log 2>&1
$NCU --import $OUT/$name.ncu-rep --page source --print-source sass --csv > $OUT/${name}_sass.csv 2>> $OUT/$name.log
$NCU --import $OUT/$name.ncu-rep --page details --csv > $OUT/${name}_details.csv 2>> $OUT/$name.log
rm -f $OUT/$name.ncu-rep
