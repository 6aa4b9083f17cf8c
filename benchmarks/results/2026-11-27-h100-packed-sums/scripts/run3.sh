#!/bin/bash
# Call 3 (shipped: packed sums on the 192x64 tiles): the auto test of the 192x64 rule and the
# head dims between the builds on the shipped config; also the first FA4 wheel copy.
set -u
rm -rf /tmp/peers && mkdir -p /tmp/peers && cp .peers/w/* /tmp/peers/
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3-tests; mkdir -p $R
timeout 300 python -m pytest -q -n 8 -m gpu tests/kernels/test_gluon_fwd.py \
  -k "192x64_on_full or (between_the_builds and packed2)" > $R/tests.log 2>&1
tail -3 $R/tests.log
cp $R/tests.log $OUT/3-tests.log && rm -rf $R
