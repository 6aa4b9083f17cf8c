#!/bin/bash
# The GPU tests of masked tiles on the max-free path (Config.masked_free): every kind of launch
# (stage 1 at 32-128-key tiles, key splits across warpgroups and CTAs, stream-K pieces, causal
# plans, two and three consumer warpgroups, packed sums) on the reference cases (rows with no
# key, Sq != Sk both ways, GQA, BSHD), a running max rising past the slack, and one score far
# past it. Each against the fp64 reference.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/tests; mkdir -p $R
timeout ${KT:-240} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "maskedfree" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -4 $R/gpu-tests.log
