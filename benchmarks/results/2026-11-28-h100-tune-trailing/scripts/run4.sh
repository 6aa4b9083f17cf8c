#!/bin/bash
# Last call (after split_peers.py's parts): every peer on D=96's causal rows of 2k / 4k keys
# (the dims preset's scale, B*S = 16k, H=16), graph mode, fp16 then bf16, at the shipped tree.
set -u
source .peers/carry/install/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/4; mkdir -p $R; mv $OUT/install.log $R/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for DT in fp16 bf16; do
  python -m flashcore.cli bench --shape 4,16,4096,96 --shape 8,16,2048,96 --causal on --dtype $DT \
    --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode graph --no-plots --time-limit 150 \
    --out $R/d96-$DT > $R/d96-$DT.log 2>&1
  echo "$DT rc=$?"; grep -E "D96|geomean|correct" $R/d96-$DT.log | cut -c1-200 | tail -12
done
tar czf $OUT/run4.tgz -C $OUT 4
