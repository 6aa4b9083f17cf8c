#!/bin/bash
# Call 9: ping-pong turns on D=128 persistent causal rows from 2k keys (turns.py), both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/9-turns; mkdir -p $R
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt python benchmarks/results/2026-11-27-h100-short-causal/scripts/turns.py > $R/console-$dt.log 2>&1
done
cat $R/turns-*.log
cd $OUT && tar czf 9-turns.tgz 9-turns && rm -rf 9-turns
