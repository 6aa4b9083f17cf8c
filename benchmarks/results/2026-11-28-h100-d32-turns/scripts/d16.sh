#!/bin/bash
# Call 28: D=16, which auto sends to the Triton TMA path (gluon_fwd.MIN_HEAD_DIM = 24; v43's
# run 2 had the D=32 build ahead in two cells of four, behind by 3-9% in the others). The
# bench (call 27) read auto at 0.60 of FA4 on B=2 H=8 S=3000 causal, where call 5 had run
# the D=32 build's config at 39 us against the bench's 59. Session 52's knobs.py: "auto" is
# the Gluon heuristic config through prepare (checked against the fp64 reference), "auto
# (API)" flashcore.attention (today's dispatch: Triton), and FA4. bf16.
set -u
K=benchmarks/results/2026-11-28-h100-tune-trailing/scripts/knobs.py
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
R=$OUT/d16; mkdir -p $R
OUT=$R DTYPE=bf16 PEERS=fa4 API=1 LONG_MS=${LONG_MS:-300} KNOB_NAME=d16 KNOB_VARIANTS="" \
KNOB_CELLS="2,8,8,3000,16,1 2,8,8,3000,16,0 1,8,8,16384,16,1 16,128,128,1024,16,1 16,128,128,1024,16,0 4,128,128,4096,16,1 4,128,128,4096,16,0" \
  timeout ${KT:-230} python $K > $R/d16.log 2>&1; echo "d16 rc=$?"
grep -h -A4 "^B" $R/d16.log | grep -v "^--" | cut -c1-100
