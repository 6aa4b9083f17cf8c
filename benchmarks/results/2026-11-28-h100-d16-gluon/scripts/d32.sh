#!/bin/bash
# Call 31: call 4's lead at D=32 (stage 1 on 64-key tiles read 1.04-1.07 over auto's 64x128 with
# the clock at the power limit): auto, backend="hopper", n64 (block_n 64) and n64s3 (and three
# stages) on the cells where the D=32 build runs stage 1 (full rows of 513-2047 keys past one
# wave, causal of 1025-8191), and D=24; alone for LONG_MS=300 so the clock settles. bf16, fp16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/d32; mkdir -p $R
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS= LONG_MS=${LONG_MS:-300} NAME=d32 VARIANTS="n64:block_n=64 n64s3:block_n=64,num_stages=3" \
  D16_CELLS="16,128,128,1024,32,0 4,128,128,4096,32,1 8,64,64,2048,32,1 32,64,64,512,32,0 8,64,64,1536,32,0 16,128,128,1024,24,0" \
    timeout ${KT:-130} python benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py > $R/d32-$dt.log 2>&1
  echo "d32 $dt rc=$?"
  grep -h -A4 "^B" $R/d32-$dt.log | grep -v "^--" | cut -c1-28,100-160
done
