#!/bin/bash
# Not run (session 59's device time was spent). patches/d16_o_width.patch: D=16 on the D=32
# build accumulates O on its own 16 columns (P V on m64n16k16, not the padded m64n32k16), as
# ``o_parts``' docstring already describes for a D of half its build; the heuristic keeps its
# configs (``_parts_config`` only where O runs in two parts; 1408 cells checked offline, none
# differ). Offline: spill-free at D=16 pairs / drawn / full / stage 1, both dtypes; the loops
# 4-14 instructions shorter, the binaries 150-240. v68: D=16 runs as slowly as D=32 (37.0
# against 37.7 us) where FA4 gains 2 us; prediction +1-3% at D=16.
# The D=16 GPU tests with the patch, then this tree against the patched one, A B B A, bf16.
PATCH=benchmarks/results/2026-11-28-h200-first-tile/patches/d16_o_width.patch TESTS_K="D16 or d16" \
  CELLS="2,8,8,3000,16,1 1,16,16,3000,16,1 1,32,8,8192,16,1 2,8,8,3000,16,0 8,64,64,2048,16,1 16,128,128,1024,16,0" \
  bash benchmarks/patch_ab.sh
