#!/bin/bash
# Call 2: confirm.py in both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2-confirm; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-packed-sums/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt LONG_MS=600 timeout 280 python $S/confirm.py > $R/console-$dt.log 2>&1
done
cat $R/confirm-*.log
cd $OUT && tar czf 2-confirm.tgz 2-confirm && rm -rf 2-confirm
