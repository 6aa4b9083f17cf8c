#!/bin/bash
# Call 16 (after bench.sh, FA4 installed): the seed preset with every peer (fp16, graph and eager),
# then auto against FA4 and cuDNN on the D=16-32 cells where FA4 led in v68 (session 59's call4.sh
# cells, bf16 only): variants.py with no variants, 30 ms paired rounds then each alone.
set -u
source .peers/carry/install/install.sh > /dev/null 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH
R=$OUT/seed; mkdir -p $R
python -m flashcore.cli bench --preset seed --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode both \
  --no-plots --time-limit ${TL:-120} --out $R > $R/bench.log 2>&1
echo "seed rc=$?"; grep -A30 "graph\b" $R/bench.log | tail -30 | cut -c1-140
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
P=$OUT/peers; mkdir -p $P
OUT=$P DTYPE=bf16 PEERS="fa4,cudnn" LONG_MS=${LONG_MS:-120} NAME=peers-bf16 BASE=auto VARIANTS="" \
  D16_CELLS="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,16,16,3000,32,1 2,8,8,3000,16,0 2,8,8,3000,32,0" \
  timeout ${KT:-200} python $V > $P/peers-bf16.log 2>&1
echo "peers rc=$?"; grep -h -A3 "^B" $P/peers-bf16.log | grep -v "^--" | cut -c1-150
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
