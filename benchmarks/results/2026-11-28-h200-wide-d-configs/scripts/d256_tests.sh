#!/bin/bash
# GPU tests of D=256's causal turns at the shipped tree: auto's pick against the fp64 reference,
# and the D=256 tests of test_gluon_fwd.py.
set -u
R=$OUT/d256_tests; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
timeout ${KT:-200} python -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py -n ${NPROC:-6} -rfE -p no:cacheprovider \
  -k "${TESTS_K:-turns_on_d256 or d256}" --junitxml=$R/tests.xml > $R/tests.log 2>&1
echo "tests rc=$? $(tail -n 1 $R/tests.log)"
grep -E "FAILED|ERROR" $R/tests.log | head -20
