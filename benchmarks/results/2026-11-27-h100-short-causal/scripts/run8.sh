#!/bin/bash
# Call 8: wider chunks of heads (chunk.py, SHARES=2,1,0.5,0), bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/8-chunk; mkdir -p $R
OUT=$R SHARES=2,1,0.5,0 DTYPE=bf16 LONG_MS=400 python benchmarks/results/2026-11-27-h100-short-causal/scripts/chunk.py > $R/console-bf16.log 2>&1
tail -40 $R/console-bf16.log
cd $OUT && tar czf 8-chunk.tgz 8-chunk && rm -rf 8-chunk
