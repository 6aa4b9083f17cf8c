#!/bin/bash
# Session 59, call 12: GPU tests at the shipped tree (bc6b922's first tile, e3fefce's packed
# sums on the D=64 build's pairs): auto's picks (each checked against the fp64 reference),
# the pairs and the causal plan pieces.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
mkdir -p $OUT/tests
timeout ${KT_TESTS:-200} python -m pytest -q -n 12 tests/kernels/test_gluon_fwd.py -m gpu \
  -k "test_auto or pairs or causal_plan_pieces" > $OUT/tests/tests.log 2>&1
echo "tests rc=$?"; tail -n 3 $OUT/tests/tests.log
