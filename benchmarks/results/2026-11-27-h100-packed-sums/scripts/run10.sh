#!/bin/bash
# Call 10 (shipped: packed sums also on D=128's drawn causal items and full rows under 2k keys):
# the 128x128 packed GPU tests (turns too), the head dims between the builds, auto through the
# API; then the standard preset, flashcore alone (graph mode), for the absolute rates.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/10-shipped; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 240 python -m pytest -q -n 8 -m gpu tests/kernels/test_gluon_fwd.py \
  -k "(packed2 and 128x128) or (between_the_builds and packed2) or through_the_api or where_stage1_lags" > $R/tests.log 2>&1
tail -2 $R/tests.log
timeout 200 python -m flashcore.cli bench --preset standard --dtype bf16 --providers flashcore --mode graph \
  --no-plots --out $R/standard > $R/standard.log 2>&1
grep -E "records|correct" $R/standard.log | tail -3
cd $OUT && tar czf 10-shipped.tgz 10-shipped && rm -rf 10-shipped
