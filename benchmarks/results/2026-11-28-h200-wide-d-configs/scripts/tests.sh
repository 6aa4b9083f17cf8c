#!/bin/bash
# GPU tests at the shipped tree: the stream-K merges, auto's 192x64 picks (the new stream-K
# tails at D=72-96 included), the turn-hang cells, and the API / plans tiers.
set -u
R=$OUT/tests; mkdir -p $R
export PYTHONPATH=$PWD/src${PYTHONPATH:+:$PYTHONPATH}
timeout ${KT:-420} python -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py tests/test_api.py tests/test_plans.py \
  -n ${NPROC:-6} -rfE -p no:cacheprovider -k "${TESTS_K:-stream_k_pieces or auto_cuts or 192x64 or never_hang or test_api or test_plans}" \
  --junitxml=$R/tests.xml > $R/tests.log 2>&1
echo "tests rc=$? $(tail -n 1 $R/tests.log)"
grep -E "FAILED|ERROR" $R/tests.log | head -20
