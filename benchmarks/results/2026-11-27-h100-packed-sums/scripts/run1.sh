#!/bin/bash
# Call 1: the packed row sums' GPU tests (both variants), then packed.py in both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1-packed; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-packed-sums/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 220 python -m pytest -q -n 8 -m gpu tests/kernels/test_gluon_fwd.py -k packed -x > $R/tests.log 2>&1
tail -5 $R/tests.log
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt LONG_MS=${LONG_MS:-600} timeout 175 python $S/packed.py > $R/console-$dt.log 2>&1
done
cat $R/packed-*.log
cd $OUT && tar czf 1-packed.tgz 1-packed && rm -rf 1-packed
