#!/bin/bash
# Stream-K tails on the 192x64 items of D=72 / 88 (the D=80 / 96 GEMMs at rows of 8 mod 16
# half-words), which the shipped rule (``_parts_config``) leaves whole: auto against stream-K
# on grids whose last wave is part-empty and one that is not, both dtypes, no peers.
set -u
R=$OUT/odd_dims; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
# waves on 132 SMs: 5.33, 5.21, 5.33 (D=88 at 4k keys), 10.67 (no tail)
CELLS=${CELLS:-"4,16,16,2048,88,0 1,16,16,8192,72,0 2,16,16,4096,88,0 8,16,16,2048,72,0"}
for dt in ${DTS:-bf16 fp16}; do
  OUT=$R PEERS= LONG_MS=${LONG_MS:-400} DTYPE=$dt KNOB_NAME=odd_dims KNOB_CELLS="$CELLS" KNOB_VARIANTS="sk:stream_k=1" \
    timeout ${KT:-200} python $K > $R/knobs-$dt.out 2>&1
  echo "$dt rc=$?"
done
grep -h "^B\|^   \|FAILED\|Error" $R/knobs-*.out | cut -c1-200 | tail -30
