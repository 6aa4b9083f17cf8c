#!/bin/bash
# Call 4: the shipped rule (gluon_fwd.masked_free_pays) through the API. GPU tests: auto's picks
# (the new masked-free one and the tile tests whose configs now carry it); then auto against
# its config with masked_free off ("off") and cuDNN, each checked against the fp64 reference,
# on the cells the rule turns on, both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
S=benchmarks/results/2026-11-28-h200-masked-free/scripts
mkdir -p $OUT/tests
timeout 150 python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "test_auto_" > $OUT/tests/auto-tests.log 2>&1
echo "auto tests rc=$?"; tail -3 $OUT/tests/auto-tests.log
for dt in bf16 fp16; do
  PEERS=cudnn TAG=rule LONG_MS=300 KT=200 VARS="off:masked_free=0" \
  CELLS_D="4,32,32,1024,64,1 4,64,64,512,64,1 32,32,32,512,64,1 16,32,32,1024,64,1 32,16,16,512,128,1 2,8,8,3000,48,1 2,8,8,3000,128,1 2,8,8,3000,80,1 2,8,8,3000,96,1 4,32,32,4096,48,1 16,32,32,1024,48,1" \
    bash $S/mf.sh $dt
done
