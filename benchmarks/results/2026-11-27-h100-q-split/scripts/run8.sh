#!/bin/bash
# Calls 8-9 (after the FA4 install calls): the order's GPU test with tails of 3, 20 and 1000 heads
# (call 8 only), then every peer on the standard and GQA presets, one dtype a call
# (../../2026-11-27-h100-packed-sums/scripts/run4.sh).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
if [ "$1" = bf16 ]; then
  mkdir -p $OUT/8-tests
  timeout 90 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "causal_order" \
    > $OUT/8-tests/tests.log 2>&1
  echo "tests rc=$?: $(tail -1 $OUT/8-tests/tests.log)"; grep FAILED $OUT/8-tests/tests.log | head -5
  (cd $OUT && tar czf 8-tests.tgz 8-tests && rm -rf 8-tests)
fi
bash benchmarks/results/2026-11-27-h100-packed-sums/scripts/run4.sh $1
