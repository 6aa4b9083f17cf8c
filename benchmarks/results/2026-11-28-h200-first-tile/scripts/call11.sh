#!/bin/bash
# Session 59, call 11: call 10 read packed sums on the D=64 build's pairs at 1.008-1.019
# (D=48 / D=64, bf16, wide intervals), where v50 had kept fp32 sums on its 192x128 (0.98-0.996).
# Confirmation on more cells, both dtypes, each alone for 300 ms: pairs at D=40 / 48 / 64 and
# GQA 16/4, drawn D=64 GQA 32/8 and MHA at S=8k. Checked against the fp64 reference.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
mkdir -p $OUT/ps
for dt in bf16 fp16; do
  OUT=$OUT/ps DTYPE=$dt PEERS= LONG_MS=${LONG_MS:-300} NAME=ps-$dt BASE=auto VARIANTS="ps2:packed_sums=2" \
    D16_CELLS="2,8,8,3000,40,1 2,8,8,3000,48,1 2,8,8,3000,64,1 1,16,4,3000,64,1 1,32,8,8192,64,1 1,16,16,8192,64,1" \
    timeout ${KT:-200} python $V > $OUT/ps/ps-$dt.log 2>&1
  echo "$dt rc=$?"
  grep -E "^B|short" $OUT/ps/ps-$dt.log | cut -c1-150
done
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
