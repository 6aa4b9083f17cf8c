#!/usr/bin/env bash
# Device call 11: short GQA queries that do not pack (group x Sq > 16 rows): auto (the portable
# kernel, one block per query head, keys split) against the Gluon kernel and SDPA.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
S=""
for d in 64 128; do for sq in 4 8 16 32; do S="$S --shape 1,32,$sq,$d,8,8192"; done; done
S="$S --shape 2,32,16,128,8,4096 --shape 4,32,8,128,8,4096"
python -m flashcore.cli bench $S --causal off --mode graph --providers flashcore,flashcore-gluon,flashcore-triton,sdpa-cudnn,sdpa-flash \
  --out $OUT/bench-short-gqa --no-plots --sets 2 --time-limit 400 2>&1 | tail -3 | tee $OUT/bench.log
