#!/bin/bash
# Call 9: variant 2 with chained sums on the 128x128 tiles: its GPU tests, then packed.py's causal cells.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/9-chain; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-packed-sums/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 150 python -m pytest -q -n 8 -m gpu tests/kernels/test_gluon_fwd.py -k "packed2 and 128x128" > $R/tests.log 2>&1
tail -2 $R/tests.log
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PACKED_CELLS=causal LONG_MS=600 timeout 170 python $S/packed.py > $R/console-$dt.log 2>&1
done
cat $R/packed-causal-*.log
cd $OUT && tar czf 9-chain.tgz 9-chain && rm -rf 9-chain
