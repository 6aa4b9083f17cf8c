#!/bin/bash
# Call 2: parts.py in fp16 alone (call 1's fp16 run logged nothing in 250 s), with a stack dump
# at 200 s and each config's start printed.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2-parts-fp16; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-parts/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=fp16 LONG_MS=600 STACK_AFTER=${STACK_AFTER:-280} timeout 300 python -u $S/parts.py > $R/console-fp16.log 2>&1
echo rc=$?
cat $R/parts-*.log | grep -v "^ *$" | tail -40
tail -40 $R/console-fp16.log
