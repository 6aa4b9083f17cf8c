#!/bin/bash
# Not run (this session's device time ran out): the GPU tests that take D=16 onto the Gluon
# kernel, each against the fp64 reference. Apply ../patches/d16_gluon.patch first.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/tests16; mkdir -p $R
timeout ${KT:-150} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "(between_the_builds_against_reference and D16) or (padded_columns and 16) or auto_takes_gluon or packed_p_on_causal_d32" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -4 $R/gpu-tests.log
