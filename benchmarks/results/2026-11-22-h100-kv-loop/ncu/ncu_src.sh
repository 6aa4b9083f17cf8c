#!/bin/bash
# ncu source-level (SASS + stall samples) of one kernel launch: $1 = fc | fa4, $2 = full | causal
NCU=/usr/local/cuda/bin/ncu
name=$1_$2
$NCU --section SourceCounters --section WarpStateStats --section InstructionStats -k regex:"_gluon_fwd_ws_kernel|flash_attncute" \
  --launch-skip 2 --launch-count 1 -f -o $OUT/$name python3 .scratch/ov/one.py $1 $2 > $OUT/$name.log 2>&1
$NCU --import $OUT/$name.ncu-rep --page source --print-source sass --csv > $OUT/${name}_sass.csv 2>> $OUT/$name.log
$NCU --import $OUT/$name.ncu-rep --page details --csv > $OUT/${name}_details.csv 2>> $OUT/$name.log
ls -la $OUT/${name}* | tail -5
