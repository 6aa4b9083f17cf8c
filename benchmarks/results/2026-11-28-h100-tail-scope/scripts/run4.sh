#!/bin/bash
# Call 16: scope.py in bf16 and fp16 on the D=72-96 persistent causal launches of at most 2k keys
# (the D=128 build, O in parts, 128x128 turns), which keep the half-L2 tail: D=96 B=16 H=16 S=1k
# (8 items a head; one wave = 17 heads; rule 66, tail 124), D=80 B=16 H=24 S=1k (17; rule 80,
# tail 144), D=96 B=8 H=16 S=2k (16 items; 9; rule 33, tail 62).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tail-scope/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS=cudnn LONG_MS=600 SCOPE_CELLS="16,16,16,1024,96 16,24,24,1024,80 8,16,16,2048,96" \
    SCOPE_TAILS="d,32,17,8;d,32,17,8;d,16,9" timeout 280 python -u $S/scope.py > $R/console-$dt.log 2>&1
  echo "$dt rc=$?"; grep -E "causal \(|   [atc]" $R/console-$dt.log | cut -c1-190
done
