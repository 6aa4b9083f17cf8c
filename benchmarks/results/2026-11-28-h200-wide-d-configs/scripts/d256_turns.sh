#!/bin/bash
# D=256's two warpgroups on 128x64 tiles (no turns) against the same with ping-pong turns:
# call 6 read turns 1.012 / 1.013 at causal S=1000 and 1.024 / 0.976 at S=3000. More cells,
# both masks, both dtypes, no peers.
set -u
R=$OUT/d256_turns; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
CELLS=${CELLS:-"4,16,16,1024,256,1 8,16,16,512,256,1 2,16,16,2048,256,1 4,16,16,1024,256,0 2,16,16,4096,256,0"}
for dt in ${DTS:-bf16 fp16}; do
  OUT=$R PEERS= LONG_MS=${LONG_MS:-300} DTYPE=$dt KNOB_NAME=d256_turns KNOB_CELLS="$CELLS" KNOB_VARIANTS="pp:pingpong=1" \
    timeout ${KT:-140} python $K > $R/knobs-$dt.out 2>&1
  echo "$dt rc=$?"
done
grep -h "^B\|^   \|FAILED\|Error" $R/knobs-*.out | cut -c1-200 | tail -30
