#!/bin/bash
# Call 1: the D=24 O-parts patch's GPU tests (every D=24 case of the gluon tier), then the tree
# against the patched one, A B B A (benchmarks/patch_ab.sh), bf16, four D=24 cells.
PATCH=benchmarks/results/2026-11-28-h200-d24-o-parts/patches/d24_o_parts.patch \
TESTS_K="D24- or 24-32" KT_TESTS=120 LONG_MS=150 KT=75 \
CELLS="2,8,8,3000,24,1 1,16,16,3000,24,1 2,8,8,3000,24,0 16,128,128,1024,24,0" \
  bash benchmarks/patch_ab.sh
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv > $OUT/gpu.csv
