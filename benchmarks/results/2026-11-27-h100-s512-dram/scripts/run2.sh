#!/bin/bash
# Call 2: prefetch.py: stage 1's bulk L2 prefetches (the head's K/V, a later head's Q/K/V) on
# D=128 and D=64 S=512 causal, against auto and cuDNN, bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-s512-dram/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=800 PF_CELLS="32,16,512,128 32,32,512,64" timeout 420 python -u $S/prefetch.py > $R/console.log 2>&1
echo "rc=$?"; grep -vE "^\s*$" $R/console.log | grep -v Warning | tail -24
rm -f $R/gluon_fwd_pf*.py
