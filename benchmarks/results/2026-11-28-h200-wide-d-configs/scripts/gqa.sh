#!/bin/bash
# The shipped stream-K tail on GQA's D=80 / 96 full 192x64 items (K/V shared by 4-8 query heads):
# auto (stream-K at 5.33 waves) against whole items, both dtypes, no peers.
set -u
R=$OUT/gqa; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
CELLS=${CELLS:-"2,32,8,2048,96,0 1,32,4,4096,80,0 1,64,8,2048,88,0"}
for dt in ${DTS:-bf16 fp16}; do
  OUT=$R PEERS= LONG_MS=${LONG_MS:-400} DTYPE=$dt KNOB_NAME=gqa KNOB_CELLS="$CELLS" KNOB_VARIANTS="whole:stream_k=0" \
    timeout ${KT:-150} python $K > $R/knobs-$dt.out 2>&1
  echo "$dt rc=$?"
done
grep -h "^B\|^   \|FAILED\|Error" $R/knobs-*.out | cut -c1-200 | tail -30
