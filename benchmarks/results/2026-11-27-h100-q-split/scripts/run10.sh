#!/bin/bash
# Call 10: width.py: ncu (time at ncu's clocks, DRAM bytes) of D=64 B=8 H=32 S=2k causal for each
# variant, then the long windows in bf16 on it and on D=128 S=4k causal.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/10-width; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum
i=0
for var in "chunks" "tree (w = group)" "w = chunk / 4" "w = chunk"; do i=$((i+1))
  MODE=ncu VARIANT="$var" timeout 100 $NCU --metrics $M -k regex:gluon --launch-skip 3 --launch-count 1 \
    --csv python $S/width.py > $R/ncu-$i.csv 2> /dev/null
  echo "$var: $(grep -E 'gpu__time|dram__bytes' $R/ncu-$i.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 300 python -u $S/width.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 10-width.tgz 10-width
