#!/usr/bin/env bash
# Device call 1: L2 prefetch before the PDL wait, and the early trigger, each applied to the
# shipped stage-1 config (paired A/B, ../../2026-11-25-h100-pingpong-fp16/scripts/abx.py, ON_SHIPPED=1).
set -uo pipefail
export PYTHONUNBUFFERED=1 ON_SHIPPED=1
AB=benchmarks/results/2026-11-25-h100-pingpong-fp16/scripts
export PYTHONPATH=$PWD/src
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
python -c "import torch, triton; print(torch.__version__, triton.__version__, torch.version.cuda)" | tee -a $OUT/env.txt
V='[dict(l2_prefetch=4), dict(l2_prefetch=4, early_trigger=True), dict(early_trigger=True), dict(l2_prefetch=2, early_trigger=True)]'
CASES="[(1,8,512,64,False,$V),(1,8,512,64,True,$V),(2,8,512,64,False,$V),(2,8,512,64,True,$V)]" \
  NSETS=48 ROUND_MS=30 ROUNDS=31 DTYPE=fp16 TAG=seed python $AB/abx.py 2>&1 | tee $OUT/seed.log
W='[dict(l2_prefetch=4), dict(l2_prefetch=4, early_trigger=True)]'
L='[dict(l2_prefetch=2), dict(l2_prefetch=8)]'
CASES="[(1,8,1024,128,False,$W),(1,8,1024,64,False,$W),(1,16,1024,128,True,$W),(32,16,512,128,True,$L),(32,32,512,64,False,$L)]" \
  NSETS=4 ROUND_MS=60 ROUNDS=21 DTYPE=bf16 TAG=other python $AB/abx.py 2>&1 | tee $OUT/other.log
