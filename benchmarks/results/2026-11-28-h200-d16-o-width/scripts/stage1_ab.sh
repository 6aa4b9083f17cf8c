#!/bin/bash
# Call 18: D=16's other paths (stage 1's 64-row blocks on short rows and small grids) with O on
# 16 columns against the padded 32 (patches/d16_o_padded.patch: 363ac0a reverted), which calls
# 1-2 did not time (their six cells all ran three warpgroups). summary.txt: this tree's time
# over the padded one's, so above 1 the padded O is faster. bf16.
set -u
CELLS="1,8,8,512,16,1 1,8,8,512,16,0 2,8,8,1024,16,1 4,16,16,1024,16,1 32,16,16,512,16,1 32,16,16,512,16,0"
PATCH=benchmarks/results/2026-11-28-h200-d16-o-width/patches/d16_o_padded.patch TESTS_K= CELLS="$CELLS" \
  LONG_MS=100 bash benchmarks/patch_ab.sh 2>&1 | tail -8
