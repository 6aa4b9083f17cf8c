#!/bin/bash
# Source-level ncu (SASS with stall samples) of auto's kernel at the D=16-32 cells of ncu.sh:
# which instructions the no-instruction and barrier stalls sit on (call 1: 1.21 / 2.33 a
# issue against FA4's 0.11 / 0.33).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/src; mkdir -p $R
S=benchmarks/results/2026-11-28-h200-small-d-ncu/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for cell in ${CELLS_NCU:-"2,8,3000,32:1" "2,8,3000,32:0"}; do
  c=${cell%:*}; m=${cell#*:}; name=$(echo "flashcore-$c-$m" | tr ',' '_')
  PROVIDER=flashcore CELL=$c CAUSAL=$m DTYPE=bf16 timeout 200 $NCU --section SourceCounters --section WarpStateStats \
    --section InstructionStats -k 'regex:gluon' --launch-skip 5 --launch-count 1 -f -o $R/$name \
    python $S/launch.py > $R/$name.log 2>&1
  $NCU --import $R/$name.ncu-rep --page source --print-source sass --csv > $R/${name}_sass.csv 2>> $R/$name.log
  echo "$name rc=$? $(wc -l < $R/${name}_sass.csv) lines"
  rm -f $R/$name.ncu-rep
done
cd $OUT && tar czf src.tgz src
