#!/bin/bash
# Not run (no device time left in session 57): apply patches/one_loop.patch first
# (git apply benchmarks/results/2026-11-28-h200-masked-free/patches/one_loop.patch).
# v66 read masked-free tiles losing on the D=32 build (0.965) though each masked tile got 66
# instructions shorter; the guess is code size: the redo now sits in both loops of each of
# the three consumer copies. one_loop runs every tile in one max-free loop, the mask under a
# uniform branch: 814 SASS instructions a consumer's loop against 1210 shipped (offline).
# GPU tests of the one-loop configs first, then the variants on the few-head causal cells where
# FA4 leads (D=16 / 24 / 32 S=3000), D=32 drawn, and stage 1's 64x128 at D=64 (also a v66 loss).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
S=benchmarks/results/2026-11-28-h200-masked-free/scripts
mkdir -p $OUT/tests
timeout ${KT_TESTS:-200} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "oneloop" > $OUT/tests/one-loop-tests.log 2>&1
echo "one-loop tests rc=$?"; tail -3 $OUT/tests/one-loop-tests.log
for dt in bf16 fp16; do
  TAG=oneloop LONG_MS=300 KT=200 VARS="mf:masked_free=1 ol:masked_free=1,one_loop=1" \
  CELLS_D="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,8,8,16384,32,1 1,32,8,8192,32,1 8,64,64,2048,32,1 2,8,8,2048,64,1 2,8,8,4096,64,1" \
    bash $S/mf.sh $dt
done
