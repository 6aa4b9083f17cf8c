#!/bin/bash
# Session 58, call 1. patches/one_loop.patch (session 57's, Config.one_loop) applied to this tree
# first: it adds a field, auto's configs are unchanged.
# 1. GPU tests: the one-loop configs; the causal plans' pieces, pairs and graphs (the plan's order
#    in _tile_coords no longer draws by groups: one chunk of every head), a D=64 GQA plan with
#    masked tiles max-free among them.
# 2. Variants (mf.sh: 30 ms paired rounds, then each alone for LONG_MS), bf16:
#    one_loop on the few-head causal cells where FA4 leads (D=16/24/32 S=3000) and D=32 drawn;
#    masked_free on the D=64 build's own 192x128 (pairs and drawn), now spill-free.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
git apply benchmarks/results/2026-11-28-h200-masked-free/patches/one_loop.patch || exit 1
M=benchmarks/results/2026-11-28-h200-masked-free/scripts
mkdir -p $OUT/tests
timeout ${KT_TESTS:-170} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu \
  -k "oneloop or causal_plan_pieces or pairs or plan_in_a_cuda_graph or stream_k_pieces" > $OUT/tests/tests.log 2>&1
echo "tests rc=$?"; tail -n 3 $OUT/tests/tests.log
DT=${DT:-bf16}
TAG=oneloop LONG_MS=300 KT=${KT1:-170} VARS="mf:masked_free=1 ol:masked_free=1,one_loop=1" \
CELLS_D="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,32,8,8192,32,1" bash $M/mf.sh $DT
TAG=mf64 LONG_MS=300 KT=${KT2:-150} VARS="mf:masked_free=1" \
CELLS_D="2,8,8,3000,64,1 1,16,4,3000,64,1 2,16,16,3000,64,1 4,32,32,4096,64,1" bash $M/mf.sh $DT
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
