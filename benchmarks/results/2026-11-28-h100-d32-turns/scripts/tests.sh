#!/bin/bash
# Call 6: the GPU tests of causal_packed_sums: auto on D=16 / 24 / 32 causal rows (pairs and
# drawn, GQA, BSHD, Sq != Sk), the pairs test, and the drawn 192x128 packed config against the
# reference on every D=64 / D=128 case of the GPU tier.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/tests; mkdir -p $R
timeout 420 python -m pytest -q -n 4 tests/kernels/test_gluon_fwd.py -m gpu -k "packed_p_on_causal_d32 or three_warpgroup_pairs_where or (test_against_reference and 192x128s3-ws-pp-persistent-maxfree-packed2)" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -5 $R/gpu-tests.log
