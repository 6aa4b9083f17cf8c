#!/bin/bash
# The GPU tests that take D=16 onto the Gluon D=32 build (MIN_HEAD_DIM 16): every padded config
# on the D=16 cases (GQA, Sq != Sk, BSHD, the small grids' key splits), the zero-fill test,
# auto's pick, and the packed-sum test (its D=24 fp16 Sq != Sk case and the new D=16 case had
# not run on a GPU). Each against the fp64 reference.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/tests; mkdir -p $R
timeout ${KT:-240} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "(between_the_builds_against_reference and D16) or (padded_columns and 16) or auto_takes_gluon or packed_p_on_causal_d32" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -4 $R/gpu-tests.log
