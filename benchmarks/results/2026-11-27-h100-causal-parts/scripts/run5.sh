#!/bin/bash
# Call 5: longer replays (hang.py, 30 s each, one process a config) of the three-warpgroup
# configs that stay: the 192x64 tiles with two stages at D=128 (fp16, S=2k and 4k), and D=64's
# causal 192x128 with three stages (auto at S=2k and 8k); then the shipped three-stage 192x64
# at S=4k for as long.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/5-stress; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-parts/scripts
one() {  # dtype cell config
  DTYPE=$1 CELL=$2 timeout ${LIMIT:-60} python -u $S/hang.py $3 ${SECS:-30} > $R/$3-$1-${2//,/-}.log 2>&1
  echo "$3 $1 $2 rc=$? $(tail -1 $R/$3-$1-${2//,/-}.log | cut -c1-90)"
}
one fp16 8,16,2048,128 s2
one fp16 4,16,4096,128 s2
one fp16 8,16,2048,64 auto
one fp16 2,16,8192,64 auto
one fp16 4,16,4096,128 s3
