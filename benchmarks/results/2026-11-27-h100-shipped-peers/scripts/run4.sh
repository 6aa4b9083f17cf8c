#!/bin/bash
# Call 4: GPU tests of the shipped causal 192x64 tiles (three stages, per-warpgroup skip): every
# max-free / padded test case on that config, the far score, the rising max, auto through the API.
set -u
export PYTHONPATH=$PWD/src
python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py \
  -k "192x64s3-ws-pp-persistent-maxfree-packed2 or causal_d128_rows_from_4k" > $OUT/4-tests.log 2>&1
tail -3 $OUT/4-tests.log; grep -E "FAILED" $OUT/4-tests.log | head -5
