#!/bin/bash
# Call 1: scope.py in bf16 and fp16 on the persistent causal launches of at most 2k keys that keep
# the half-L2 tail: D=64 B=8 H=32 S=2k (11 items a head; one wave = 12 heads; rule 50, tail 56),
# GQA 32/8 D=128 B=16 S=1k (8 items; 17; rule 200, tail 312) and B=8 S=2k (11; 12; rule 100, tail 156).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tail-scope/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS=cudnn LONG_MS=600 SCOPE_CELLS="8,32,32,2048,64 16,32,8,1024,128 8,32,8,2048,128" \
    SCOPE_TAILS="d,24,12,6;d,64,32,16;d,48,24,12" timeout 280 python -u $S/scope.py > $R/console-$dt.log 2>&1
  echo "$dt rc=$?"; grep -E "causal \(|   [atc]" $R/console-$dt.log | cut -c1-190
done
