#!/bin/bash
# Call 6: stage 1's causal launch order (order.py), both dtypes; then the GPU tests of the
# stage-1 causal paths with the new order.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6-order; mkdir -p $R
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS=cudnn LONG_MS=400 python benchmarks/results/2026-11-27-h100-short-causal/scripts/order.py > $R/console-$dt.log 2>&1
done
cat $R/order-*.log
pytest -q -n 8 -m gpu tests/kernels/test_gluon_fwd.py -k "order_over_chunks or (against_reference and causal and not ws)" > $R/tests.log 2>&1
tail -3 $R/tests.log
cd $OUT && tar czf 6-order.tgz 6-order && rm -rf 6-order
