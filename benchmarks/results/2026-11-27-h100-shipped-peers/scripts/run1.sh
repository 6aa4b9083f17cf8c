#!/bin/bash
# Call 1: FA4's first part onto the machine, then the GPU tier's packed-sum tests at the shipped tree
# (the D=64 packed configs had not run since the chained sums, 979044a).
set -u
rm -rf /tmp/peers && mkdir -p /tmp/peers && cp .peers/w/* /tmp/peers/
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
export PYTHONPATH=$PWD/src
python -m pytest -m gpu tests/kernels/test_gluon_fwd.py -k packed -q -p no:cacheprovider > $OUT/1-tests.log 2>&1
tail -3 $OUT/1-tests.log; grep -E "FAILED|Error" $OUT/1-tests.log | head -5; cat $OUT/gpu.txt
