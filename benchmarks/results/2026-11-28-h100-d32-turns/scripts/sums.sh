#!/bin/bash
# Call 4: the row sums from the packed P (packed_sums=2) on the 192x128 build's D=32 and D=64
# cells, bf16 and fp16 (call 1 read D=32 causal 1.021, D=64 S=8k full 1.012 in bf16; v50 had
# D=64 S=8k full at 0.977-0.981). Session 52's knobs.py, no peers. bash sums.sh
set -u
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export PEERS= LONG_MS=${LONG_MS:-400}
for DT in bf16 fp16; do
  R=$OUT/sums-$DT; mkdir -p $R
  OUT=$R DTYPE=$DT KNOB_NAME=sums KNOB_VARIANTS="ps2:packed_sums=2" \
  KNOB_CELLS="2,8,8,3000,32,1 2,8,8,3000,32,0 2,16,16,4096,32,1 4,64,64,4096,32,0 16,64,64,1024,32,0 2,32,32,8192,64,0 4,32,32,4096,64,0 1,32,32,16384,64,0" \
    timeout 260 python $K > $R/sums.log 2>&1; echo "$DT rc=$?"
  grep -h -A3 "^B" $R/sums.log | grep -v "^--" | cut -c1-112
done
tar czf $OUT/sums.tgz -C $OUT sums-bf16 sums-fp16
