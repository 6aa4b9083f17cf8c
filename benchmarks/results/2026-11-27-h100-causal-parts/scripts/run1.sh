#!/bin/bash
# Call 1: parts.py in both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1-parts; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-parts/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt LONG_MS=600 timeout 250 python $S/parts.py > $R/console-$dt.log 2>&1
done
cat $R/parts-*.log | grep -v "^ *$" | tail -60
tail -3 $R/console-*.log
