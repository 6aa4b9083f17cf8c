#!/bin/bash
# Call 1: draw.py. Long windows in bf16 (each variant checked first) on D=128 S=4k / 8k causal
# and D=64 S=2k causal, then DRAM bytes of one launch (ncu, caches flushed) for tree and late.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1-draw; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 LONG_MS=800 timeout 200 python -u $S/draw.py 4,16,16,4096,128 8,32,32,2048,64 2,16,16,8192,128 \
  > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|short|FAIL" $R/console-bf16.log | cut -c1-200
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
M=gpu__time_duration.sum,dram__bytes_read.sum
for cell in 4,16,16,4096,128 8,32,32,2048,64 2,32,32,8192,64; do for var in tree late; do
  MODE=ncu VARIANT=$var CELL=$cell timeout 60 $NCU --metrics $M -k regex:gluon --launch-skip 3 --launch-count 1 \
    --csv python $S/draw.py > $R/ncu-$cell-$var.csv 2> /dev/null
  echo "$cell $var: $(grep -E 'gpu__time|dram__bytes' $R/ncu-$cell-$var.csv | awk -F'","' '{printf "%s=%s ", $(NF-2), $NF}')"
done; done
cd $OUT && tar czf 1-draw.tgz 1-draw
