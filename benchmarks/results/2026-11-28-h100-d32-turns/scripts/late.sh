#!/bin/bash
# Call 3: the P @ V wait after the softmax (late.py) at D=32, D=80 and D=128. bash late.sh <dtype>
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export DTYPE=$1 LONG_MS=${LONG_MS:-400}
R=$OUT/late-$1; mkdir -p $R; export OUT=$R
S=benchmarks/results/2026-11-28-h100-d32-turns/scripts/late.py
LATE_NAME=d32 LATE_CELLS="2,8,8,3000,32,1 2,8,8,3000,32,0" timeout 200 python $S > $R/d32.log 2>&1; echo "d32 rc=$?"
LATE_NAME=d128 LATE_CELLS="2,16,16,8192,128,0 2,16,16,8192,128,1 2,8,8,3000,80,1" timeout 260 python $S > $R/d128.log 2>&1
echo "d128 rc=$?"
grep -h -A5 "^B" $R/*.log | grep -v "^--"; grep -h "FAILED\|Error\|error" $R/*.log | head
tar czf $R.tgz -C $(dirname $R) late-$1
