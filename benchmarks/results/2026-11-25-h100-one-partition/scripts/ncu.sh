#!/bin/bash
# Warp stall reasons of one Gluon launch (the third): $1 = name, $2 = full | causal, $3 = S, $4 = D,
# $5 = Config expression. Run from the repository root; writes $OUT/$1.csv (details page).
NCU=/usr/local/cuda/bin/ncu
HERE=$(dirname "$0")
$NCU --section WarpStateStats --section InstructionStats --section SpeedOfLight \
  --metrics smsp__inst_executed.sum,sm__cycles_active.avg,smsp__pcsamp_warps_issue_stalled_no_instructions,smsp__pcsamp_sample_count \
  -k regex:"_gluon_fwd" --launch-skip 2 --launch-count 1 -f -o $OUT/$1 \
  python3 $HERE/one.py $2 $3 $4 "$5" > $OUT/$1.log 2>&1
$NCU --import $OUT/$1.ncu-rep --page details --csv > $OUT/$1.csv 2>> $OUT/$1.log
rm -f $OUT/$1.ncu-rep
