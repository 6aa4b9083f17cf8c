#!/bin/bash
# Call 14: at 75b4a7e's kernels, the GPU tests of the persistent causal configs against the
# reference, auto's causal choices, the plans and the orders
# (../../2026-11-27-h100-causal-lead/scripts/tests.k), with the window call 6 lacked.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/14-tests; mkdir -p $R
timeout 450 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py \
  -k "$(cat benchmarks/results/2026-11-27-h100-causal-lead/scripts/tests.k)" > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
cd $OUT && tar czf 14-tests.tgz 14-tests
