#!/bin/bash
# Call 2: the 192x64 rule on GQA's full rows under long windows (gqa_power.py), both dtypes;
# FA4's wheels copied for the calls that follow.
set -u
rm -rf /tmp/peers && mkdir -p /tmp/peers && cp .peers/w/* /tmp/peers/
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2; mkdir -p $R
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt python benchmarks/results/2026-11-27-h100-short-causal/scripts/gqa_power.py > $R/console-$dt.log 2>&1
done
cat $R/gqa-power-*.log
