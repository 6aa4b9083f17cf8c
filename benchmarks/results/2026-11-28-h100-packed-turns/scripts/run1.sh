#!/bin/bash
# Call 1: do the causal 128x128 turns at head dims 72-112 gain from summing the packed P
# (packed_sums=1, v61's D=96 rule from 2k keys) where the rule does not reach: D=72 / 80 / 88
# at 1k-4k keys, D=96 and D=112 at 1k. knobs.py (session 52's) with one variant, bf16 then fp16;
# auto's time over the variant's (> 1: packed sums are faster), alone 400 ms / 30 ms paired.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tune-trailing/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for DT in bf16 fp16; do
  OUT=$R DTYPE=$DT PEERS=cudnn LONG_MS=400 KNOB_NAME=packed-$DT \
    KNOB_CELLS="16,28,28,1024,72,1 8,28,28,2048,72,1 16,24,24,1024,80,1 8,24,24,2048,80,1 16,24,24,1024,88,1 8,24,24,2048,88,1 4,24,24,4096,88,1 16,16,16,1024,96,1 16,18,18,1024,112,1" \
    KNOB_VARIANTS="ps1:packed_sums=1" \
    timeout 275 python -u $S/knobs.py > $R/console-$DT.log 2>&1
  echo "$DT rc=$?"; grep -E "causal|full|   [a-z0-9]" $R/console-$DT.log | grep -v "^.*: ok" | cut -c1-175 | tail -30
done
tar czf $OUT/run1.tgz -C $OUT 1
