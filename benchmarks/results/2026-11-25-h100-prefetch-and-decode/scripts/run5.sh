#!/usr/bin/env bash
# Device call 5: part of the softmax's exp2 on the FMA pipes (Config.exp_emulation: 1 or 2 of
# every 4), each applied to the shipped Gluon config (abx.py, ON_SHIPPED=1), bf16 then fp16.
set -uo pipefail
export PYTHONUNBUFFERED=1 PYTHONPATH=$PWD/src ON_SHIPPED=1
AB=benchmarks/results/2026-11-25-h100-pingpong-fp16/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.sm,power.draw --format=csv | tee $OUT/env.txt
V='[dict(exp_emulation=1), dict(exp_emulation=2)]'
CASES="[(2,32,8192,64,False,$V),(1,32,16384,64,False,$V),(4,32,4096,64,False,$V),(8,32,2048,64,False,$V),
(2,32,8192,64,True,$V),(1,32,16384,64,True,$V),(4,32,4096,64,True,$V),(32,32,512,64,False,$V),
(2,16,8192,128,False,$V),(2,16,8192,128,True,$V),(4,16,4096,128,False,$V)]" \
  ROUNDS=31 ROUND_MS=60 DTYPE=bf16 TAG=emu-bf16 python $AB/abx.py 2>&1 | tee $OUT/emu-bf16.log
CASES="[(2,32,8192,64,False,$V),(2,32,8192,64,True,$V)]" \
  ROUNDS=15 ROUND_MS=60 DTYPE=fp16 TAG=emu-fp16 python $AB/abx.py 2>&1 | tee $OUT/emu-fp16.log
