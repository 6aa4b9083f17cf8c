#!/bin/bash
# Stream-K on the 192x64 three-warpgroup tiles of full rows on the D=128 build (D=80 / 96 from
# 2k keys, ``_parts_config``; D=128 where ``three_warpgroups_read_less``): call 6 read it 1.043 /
# 1.018 at D=80 B=4 H=16 S=2k (5.33 waves, where ``stream_k_pays`` says yes) and 0.91 at B=2 H=8
# S=3000 (1.94 waves, where it says no). Cells on both sides of the rule, both dtypes, no peers.
set -u
R=$OUT/sk; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export OUT=$R PEERS= LONG_MS=${LONG_MS:-400}
# waves on 132 SMs (stream_k_pays): 5.33 yes, 5.33, 5.33, 5.21, 21.3 yes, 10.67 no, 5.33 (D=128) yes
CELLS=${CELLS:-"4,16,16,2048,80,0 4,16,16,2048,96,0 2,16,16,4096,96,0 1,16,16,8192,80,0 16,16,16,2048,96,0 8,16,16,2048,96,0 4,16,16,2048,128,0"}
for dt in ${DTS:-bf16 fp16}; do
  DTYPE=$dt KNOB_NAME=sk KNOB_CELLS="$CELLS" KNOB_VARIANTS="sk:stream_k=1" timeout ${KT:-270} python $K > $R/sk-$dt.out 2>&1
  echo "$dt rc=$?"
done
grep -h "^B\|^   \|FAILED\|Error" $R/sk-*.out | cut -c1-200 | tail -50
