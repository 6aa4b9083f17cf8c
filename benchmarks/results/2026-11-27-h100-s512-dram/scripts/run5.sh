#!/bin/bash
# Call 5: chunk.py, the 128x128 ping-pong persistent build's causal tail width at S=512, bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/5; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-s512-dram/scripts
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=800 timeout 300 python -u $S/chunk.py > $R/console.log 2>&1
echo "rc=$?"; grep -vE "^\s*$" $R/console.log | grep -v Warning | tail -12
