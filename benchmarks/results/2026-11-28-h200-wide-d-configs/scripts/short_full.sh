#!/bin/bash
# Stream-K tails on short full rows (under 2k keys: 128x128 ping-pong turns, whole items) where
# the last wave is part-empty, at D=128 and D=80 / 96, both dtypes, no peers; and D=64's
# stage-1-free short rows are not touched. Cells: 704 items (5.33 waves), one with 10.67.
set -u
R=$OUT/short_full; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
CELLS=${CELLS:-"11,8,8,1024,128,0 11,8,8,1024,96,0 1,88,88,1024,80,0 1,44,44,1536,128,0 22,8,8,1024,128,0"}
for dt in ${DTS:-bf16 fp16}; do
  OUT=$R PEERS= LONG_MS=${LONG_MS:-400} DTYPE=$dt KNOB_NAME=short_full KNOB_CELLS="$CELLS" KNOB_VARIANTS="sk:stream_k=1" \
    timeout ${KT:-200} python $K > $R/knobs-$dt.out 2>&1
  echo "$dt rc=$?"
done
grep -h "^B\|^   \|FAILED\|Error" $R/knobs-*.out | cut -c1-200 | tail -30
