#!/bin/bash
# Session 58, call 12: after 2b7d78a moved the code, masked-free tiles turned on the pairs builds
# (calls 1-3); do the D=32 build's other knobs, read before it, still hold? Variants against
# auto (masked-free on) on the D=16 / 24 / 32 pairs at S=3000 and on D=32 full rows at S=3000
# (0.977 of FA4 in call 11), bf16: the fp32 row sums (ps0) / packed ones on full rows (ps2),
# no turns (pp0), two ring stages (s2).
set -u
M=benchmarks/results/2026-11-28-h200-masked-free/scripts
TAG=knobs LONG_MS=150 KT=${KT:-250} VARS="ps0:packed_sums=0 ps2:packed_sums=2 pp0:pingpong=0 s2:num_stages=2" \
CELLS_D="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 2,8,8,3000,32,0" bash $M/mf.sh bf16
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
