#!/bin/bash
# Call 5: packed_sums=2 on the D=32 build's causal 192x128 rows, the cells call 4 did not cover:
# long rows drawn whole (S=8k / 16k, no plan), the plan's pairs at D=16 / 24 (the same build),
# and call 4's S=3000 cell again. bf16 and fp16. Session 52's knobs.py, no peers. bash sums32.sh
set -u
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export PEERS= LONG_MS=${LONG_MS:-400}
for DT in bf16 fp16; do
  R=$OUT/sums32-$DT; mkdir -p $R
  OUT=$R DTYPE=$DT KNOB_NAME=sums32 KNOB_VARIANTS="ps2:packed_sums=2" \
  KNOB_CELLS="2,8,8,3000,32,1 2,16,16,8192,32,1 1,8,8,16384,32,1 1,32,8,8192,32,1 2,8,8,3000,24,1 2,8,8,3000,16,1" \
    timeout 250 python $K > $R/sums32.log 2>&1; echo "$DT rc=$?"
  grep -h -A3 "^B" $R/sums32.log | grep -v "^--\|(API)" | cut -c1-80
done
tar czf $OUT/sums32.tgz -C $OUT sums32-bf16 sums32-fp16
