#!/bin/bash
# Call 19: calls 2 and 18 in fp16 (they ran bf16): this tree (D=16's O on 16 columns) over
# patches/d16_o_padded.patch (O padded to 32); below 1 the 16 columns are faster.
set -u
CELLS="2,8,8,3000,16,1 1,32,8,8192,16,1 2,8,8,3000,16,0 16,128,128,1024,16,0 2,8,8,1024,16,1 32,16,16,512,16,0"
PATCH=benchmarks/results/2026-11-28-h200-d16-o-width/patches/d16_o_padded.patch TESTS_K= CELLS="$CELLS" \
  DT=fp16 LONG_MS=100 bash benchmarks/patch_ab.sh 2>&1 | tail -8
