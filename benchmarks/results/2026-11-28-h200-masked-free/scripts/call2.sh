#!/bin/bash
# Call 2: masked_free on the D=64 build's causal cells (call 1 read B=2 H=8 S=3000 at 1.04-1.06),
# both dtypes; on the D=16 / D=32 cells that lost (0.965) without the packed sums (mf0), against
# the packed sums alone off (ps0); then session 56's d24.sh (D=24's stage 1 on 64-key tiles).
set -u
S=benchmarks/results/2026-11-28-h200-masked-free/scripts
D64="2,8,8,3000,64,1 2,8,8,2048,64,1 2,8,8,4096,64,1 2,16,16,3000,64,1 2,8,8,3000,48,1 4,32,32,1024,64,1 4,64,64,512,64,1 4,16,16,4096,64,1 1,8,8,16384,64,1"
for dt in bf16 fp16; do
  TAG=d64 LONG_MS=300 CELLS_D="$D64" KT=200 bash $S/mf.sh $dt
done
TAG=d32 LONG_MS=300 VARS="mf0:masked_free=1,packed_sums=0 ps0:packed_sums=0" CELLS_D="2,8,8,3000,32,1 2,8,8,3000,16,1" KT=90 bash $S/mf.sh bf16
KT=80 bash benchmarks/results/2026-11-28-h100-d16-gluon/scripts/d24.sh
