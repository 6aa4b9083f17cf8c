#!/bin/bash
# Run 4: shared memory and tensor-pipe counters of one launch (the third) of RINGS[D] and FA4, for
# the rings' QK wait (v33: three times FA4's). $1 = ring | fa4, $2 = full | causal, $3 = S, $4 = D.
# From the repository root; writes the details page as CSV to $OUT.
NCU=/usr/local/cuda/bin/ncu
ONE=benchmarks/results/2026-11-25-h100-softmax-overlap/scripts/one.py
name=$1_$2_$3_d$4
$NCU --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables --section SpeedOfLight \
  --metrics "regex:l1tex__data_(pipe|bank).*shared.*\.sum$,regex:sm__pipe_tensor.*cycles_active\.avg\.pct_of_peak_sustained_active$,regex:smsp__inst_executed_pipe_(uniform|tensor).*\.sum$" \
  -k regex:"flash_attncute|flashcore" --launch-skip 2 --launch-count 1 -f -o $OUT/$name \
  python3 $ONE $1 $2 $3 $4 > $OUT/$name.log 2>&1
$NCU --import $OUT/$name.ncu-rep --page details --csv > $OUT/${name}_details.csv 2>> $OUT/$name.log
rm -f $OUT/$name.ncu-rep
