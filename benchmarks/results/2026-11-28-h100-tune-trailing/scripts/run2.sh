#!/bin/bash
# Call 2: knobs.py, bf16 then fp16: which of the knobs of call 1's confirmed fp16 entry
# (packed_sums=1, causal_tail=1 on D=96 S=4k causal; pingpong + packed_sums=1 on D=256 S=4k
# full, confirmed 1.028) pays, and on which neighbouring cells.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tune-trailing/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for DT in bf16 fp16; do
  OUT=$R DTYPE=$DT PEERS=cudnn LONG_MS=400 KNOB_NAME=knobs-$DT \
    KNOB_CELLS="4,16,16,4096,96,1 8,16,16,2048,96,1 4,24,24,4096,80,1 4,16,16,4096,128,1 4,8,8,4096,256,0" \
    KNOB_VARIANTS="ps1:packed_sums=1 tail1:causal_tail=1 both:packed_sums=1,causal_tail=1 pp_ps1:pingpong=1,packed_sums=1" \
    timeout 285 python -u $S/knobs.py > $R/console-$DT.log 2>&1
  echo "$DT rc=$?"; grep -E "causal|full|   [a-z0-9]" $R/console-$DT.log | grep -v "^.*: ok" | cut -c1-180 | tail -45
done
tar czf $OUT/run2.tgz -C $OUT 2
