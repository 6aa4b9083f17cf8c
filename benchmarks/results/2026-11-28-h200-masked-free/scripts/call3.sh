#!/bin/bash
# Call 3: masked_free on the standard and dims presets' causal cells that run the D=64 build's
# 64x64 stage 1 (S=512 / 1k) or its three warpgroups (S=2k, D=48 S=4k), and D=128's S=512;
# both dtypes, cuDNN beside them (the best peer at S=512 in the standard preset).
set -u
S=benchmarks/results/2026-11-28-h200-masked-free/scripts
for dt in bf16 fp16; do
  PEERS=cudnn TAG=std LONG_MS=300 KT=200 \
  CELLS_D="32,32,32,512,64,1 16,32,32,1024,64,1 8,32,32,2048,64,1 16,32,32,1024,48,1 4,32,32,4096,48,1 32,16,16,512,128,1" \
    bash $S/mf.sh $dt
done
