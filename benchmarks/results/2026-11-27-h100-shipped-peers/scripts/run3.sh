#!/bin/bash
# Call 3: the D=128 build's causal 192x64 tiles with the per-warpgroup skip: GPU tests, then skip.py
# in both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3-skip; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-shipped-peers/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 200 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "192x64 and causal" > $R/tests.log 2>&1
tail -2 $R/tests.log; grep -E "FAILED" $R/tests.log | head -5
if grep -q " passed" $R/tests.log && ! grep -q "FAILED\| failed" $R/tests.log; then
  for dt in bf16 fp16; do
    OUT=$R DTYPE=$dt LONG_MS=600 timeout 230 python $S/skip.py > $R/console-$dt.log 2>&1
  done
fi
cat $R/skip-*.log | grep -v "^ *$" | tail -60
cd $OUT && tar czf 3-skip.tgz 3-skip && rm -rf 3-skip
