#!/bin/bash
# Call 2: the 63 packed-sum GPU tests that call 1's 500 s limit cut off (rest_ids.txt: the last 63 of
# `pytest -m gpu tests/kernels/test_gluon_fwd.py -k packed --collect-only`, the far-score tests).
set -u
export PYTHONPATH=$PWD/src
mapfile -t ids < benchmarks/results/2026-11-27-h100-shipped-peers/scripts/rest_ids.txt
python -m pytest -m gpu -q -p no:cacheprovider "${ids[@]}" > $OUT/2-tests.log 2>&1
tail -3 $OUT/2-tests.log
