#!/bin/bash
# Call 4: variants.py, one variant a process with a time limit (rc 124: it hung).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/4-variants; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-parts/scripts
one() {  # dtype cell variant
  DTYPE=$1 CELL=$2 timeout ${LIMIT:-45} python -u $S/variants.py $3 ${SECS:-8} > $R/$3-$1-${2//,/-}.log 2>&1
  echo "$3 $1 $2 rc=$? $(tail -1 $R/$3-$1-${2//,/-}.log | cut -c1-90)"
}
one fp16 8,16,2048,128 s3
one fp16 4,16,4096,128 s3
one fp16 8,16,2048,128 synced
one fp16 8,16,2048,128 noskip
one fp16 8,16,2048,128 pk0
one bf16 8,16,2048,128 s3
one fp16 2,16,8192,128 s3
