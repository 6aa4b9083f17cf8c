#!/bin/bash
# Session 59, call 4 (session 58's peers.sh at this tree, PEERS comma-separated, D=48 pairs added): the last call (after benchmarks/split_peers.py's five carry calls; install.sh
# sourced first): auto against FA4 and cuDNN on the cells where issue 4 still trails FA4 on the
# H100 (D=16-32 causal on few heads, full rows at S=3000 D=32-96, fp16 D=64 S=8k full, fp16
# D=128 S=4k causal), in one run, both dtypes: variants.py with no variants (30 ms paired
# rounds, then each alone for LONG_MS; auto checked against the fp64 reference).
set -u
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
python3 -c "import flash_attn.cute" || exit 1
R=$OUT/peers; mkdir -p $R
CAUSAL="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,16,16,3000,32,1 2,8,8,3000,48,1 2,8,8,3000,64,1 1,8,8,4096,128,1"
FULL="2,8,8,3000,32,0 2,8,8,3000,64,0 2,8,8,3000,96,0"
for dt in bf16 fp16; do
  extra=""
  [ $dt = fp16 ] && extra="4,16,16,8192,64,0 4,16,16,4096,128,1"
  PYTHONPATH=$PWD/src:$PYTHONPATH OUT=$R DTYPE=$dt PEERS="fa4,cudnn" LONG_MS=${LONG_MS:-200} NAME=peers-$dt BASE=auto \
    VARIANTS="" D16_CELLS="$CAUSAL $FULL $extra" timeout ${KT:-200} python $V > $R/peers-$dt.log 2>&1
  echo "$dt rc=$?"
  grep -h -A3 "^B" $R/peers-$dt.log | grep -v "^--" | cut -c1-150
done
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
