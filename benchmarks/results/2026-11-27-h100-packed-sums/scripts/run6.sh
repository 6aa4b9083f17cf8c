#!/bin/bash
# Call 6: packed.py's short-row cells (PACKED_CELLS=short) in both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6-short; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-packed-sums/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PACKED_CELLS=short LONG_MS=600 timeout 250 python $S/packed.py > $R/console-$dt.log 2>&1
done
cat $R/packed-short-*.log
cd $OUT && tar czf 6-short.tgz 6-short && rm -rf 6-short
