#!/bin/bash
# Call 7: the persistent causal kernels' chunk of heads (chunk.py), bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7-chunk; mkdir -p $R
OUT=$R DTYPE=bf16 LONG_MS=400 python benchmarks/results/2026-11-27-h100-short-causal/scripts/chunk.py > $R/console-bf16.log 2>&1
tail -40 $R/console-bf16.log
cd $OUT && tar czf 7-chunk.tgz 7-chunk && rm -rf 7-chunk
