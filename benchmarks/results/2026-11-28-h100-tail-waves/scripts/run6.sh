#!/bin/bash
# Call 31: the GPU tier at the final tree: the API and plan tiers, and the Gluon tests of auto's
# configs, the tails, the causal order, GQA and plans.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7; mkdir -p $R
timeout 280 python -m pytest -q -n 12 -p no:cacheprovider tests/test_api.py tests/test_plans.py \
  tests/kernels/test_gluon_fwd.py -m gpu -k "test_api or test_plans or auto or tail or order or gqa or plan" > $R/gpu-tests.log 2>&1
echo "rc=$?"; tail -3 $R/gpu-tests.log
