#!/bin/bash
# D=16 cells: auto (Gluon's D=32 build after MIN_HEAD_DIM 16) against the Triton TMA kernel
# (auto's path past one wave before) and the portable kernel (auto's path on small grids
# before), and cuDNN. Call 28 of 2026-11-28-h100-d32-turns read the first seven cells on an
# H200; the last four are small grids and GQA. Usage: cells.sh bf16|fp16
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/cells; mkdir -p $R
OUT=$R DTYPE=$1 PEERS=${PEERS:-cudnn} LONG_MS=${LONG_MS:-200} NAME=d16 \
D16_CELLS="2,8,8,3000,16,1 2,8,8,3000,16,0 1,8,8,16384,16,1 16,128,128,1024,16,1 16,128,128,1024,16,0 4,128,128,4096,16,1 4,128,128,4096,16,0 1,8,8,512,16,0 1,8,8,512,16,1 2,8,8,1000,16,1 1,32,8,8192,16,1" \
  timeout ${KT:-280} python benchmarks/results/2026-11-28-h100-d16-gluon/scripts/backends.py > $R/d16-$1.log 2>&1
echo "cells $1 rc=$?"
grep -h -A5 "^B" $R/d16-$1.log | grep -v "^--" | cut -c1-110
