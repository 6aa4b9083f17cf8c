#!/bin/bash
# Masked tiles on the max-free path (mf: Config.masked_free) against auto's config as it is, on
# causal cells of every build (CELLS_D; VARS replaces the variants, TAG names the logs), no peers: session 56's variants.py (paired 30 ms rounds,
# then each alone for LONG_MS), every provider checked against the fp64 reference.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/mf; mkdir -p $R
OUT=$R DTYPE=${1:-bf16} PEERS=${PEERS:-} LONG_MS=${LONG_MS:-150} NAME=${TAG:-mf} BASE="auto" VARIANTS="${VARS:-mf:masked_free=1}" \
D16_CELLS="${CELLS_D:-2,8,8,3000,16,1 2,8,8,3000,32,1 2,8,8,3000,64,1 2,8,8,3000,128,1 2,8,8,3000,80,1 8,64,64,2048,32,1 1,8,8,16384,32,1 2,16,16,8192,64,1 2,16,16,8192,128,1 4,16,16,1024,128,1 4,32,32,1024,64,1}" \
  timeout ${KT:-330} python benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py > $R/${TAG:-mf}-${1:-bf16}.log 2>&1
echo "mf rc=$?"
grep -h -A4 "^B" $R/${TAG:-mf}-${1:-bf16}.log | grep -v "^--" | cut -c1-185
