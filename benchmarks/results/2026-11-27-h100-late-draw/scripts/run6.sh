#!/bin/bash
# Call 6: group.py at 01b674d's kernels (the late draw): one KV group at a time on every causal
# launch against the tree's threshold rule. ncu (DRAM bytes, time at ncu's clocks) on D=64 S=2k,
# then long windows in bf16 on D=64 S=2k / 4k and D=128 S=2k causal.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6-group; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum
for var in tree group; do
  MODE=ncu VARIANT=$var timeout 60 $NCU --metrics $M -k regex:gluon --launch-skip 3 --launch-count 1 \
    --csv python $S/group.py > $R/ncu-d64-s2k-$var.csv 2> /dev/null
  echo "d64 s2k $var: $(grep -E 'gpu__time|dram__bytes' $R/ncu-d64-s2k-$var.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 240 python -u $S/group.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short|FAIL" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 6-group.tgz 6-group
