#!/bin/bash
# Ours against FA4 under Nsight Compute on the D=16-32 rows where FA4 leads by 2-4% (v69):
# pipes, issue, stalls, instructions by opcode, registers. FA4 must be installed
# (.peers/carry/install/install.sh after benchmarks/split_peers.py's carry calls).
set -u
source .peers/carry/install/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH
R=$OUT/ncu; mkdir -p $R
S=benchmarks/results/2026-11-28-h200-small-d-ncu/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for cell in ${CELLS_NCU:-"2,8,3000,32:1" "2,8,3000,32:0" "2,8,3000,16:1"}; do
  for prov in flashcore fa4; do
    c=${cell%:*}; m=${cell#*:}; tag=$(echo "$prov-$c-$m" | tr ',' '_')
    # FA4's CuTe kernels and ours carry different names; the regex takes either, not torch's.
    PROVIDER=$prov CELL=$c CAUSAL=$m DTYPE=bf16 timeout 200 $NCU --section WarpStateStats --section SpeedOfLight \
      --section ComputeWorkloadAnalysis --section SchedulerStats --section InstructionStats --section LaunchStats \
      --section Occupancy --metrics sm__cycles_active.max,sm__cycles_active.avg,smsp__inst_executed.sum \
      -k 'regex:(?i)(gluon|flash|sm90)' --launch-skip 5 --launch-count 1 --csv --page raw \
      python $S/launch.py > $R/$tag.csv 2> $R/$tag.err
    echo "$tag rc=$?"
  done
done
python $S/table.py $R | tee $R/table.txt
cd $OUT && tar czf ncu.tgz ncu install.log
