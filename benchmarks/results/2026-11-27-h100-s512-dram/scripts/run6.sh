#!/bin/bash
# Call 6: chunk.py on auto's persistent causal configs at D=128 S=1k (128x128 turns, default tail
# 50 heads) and S=2k (192x64, 25), and the S=512 build at tails 48 and 64, bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-s512-dram/scripts
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=800 CHUNK_NAME=tails CHUNK_CELLS="16,16,1024,128 8,16,2048,128 32,16,512,128" \
  CELL_TAILS="1024:d,32,16,8,1 2048:d,12,6 512:d,64,48,32" timeout 500 python -u $S/chunk.py > $R/console.log 2>&1
echo "rc=$?"; grep -vE "^\s*$" $R/console.log | grep -v Warning | tail -24
