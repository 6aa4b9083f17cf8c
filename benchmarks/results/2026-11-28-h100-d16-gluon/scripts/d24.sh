#!/bin/bash
# Not run (no device time left in session 56): D=24's stage 1 on 64-key tiles, as D=32's since
# v65 (call 31), on the same cells; backend="triton" stands in for "hopper", which refuses D=24.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/d24; mkdir -p $R
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS= LONG_MS=${LONG_MS:-300} NAME=d24 BASE="auto triton" \
  VARIANTS="n64:block_n=64" \
  D16_CELLS="16,128,128,1024,24,0 4,128,128,4096,24,1 8,64,64,2048,24,1 32,64,64,512,24,0 8,64,64,1536,24,0" \
    timeout ${KT:-150} python benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py > $R/d24-$dt.log 2>&1
  echo "d24 $dt rc=$?"
  grep -h -A4 "^B" $R/d24-$dt.log | grep -v "^--" | cut -c1-28,100-160
done
