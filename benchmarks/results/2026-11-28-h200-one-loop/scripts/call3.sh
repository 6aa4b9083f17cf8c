#!/bin/bash
# Session 58, call 3: masked_free_pays now takes the D=32 build's 192-row blocks (calls 1-2).
# 1. GPU tests of auto's picks (every test_auto_*; the D=32 pairs and a drawn D=16 GQA cell among them).
# 2. mf0 (masked_free off) against auto on the D=64 build's narrower head dims, whose v66 read
#    (D=48 pairs 1.070) came before _tile_coords' change moved the code (D=64's own flipped), and
#    on more of the D=32 build's cells; both dtypes.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
M=benchmarks/results/2026-11-28-h200-masked-free/scripts
mkdir -p $OUT/tests
timeout ${KT_TESTS:-150} python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "test_auto" > $OUT/tests/auto.log 2>&1
echo "tests rc=$?"; tail -n 2 $OUT/tests/auto.log
for dt in bf16 fp16; do
  TAG=narrow LONG_MS=250 KT=${KT1:-140} VARS="mf0:masked_free=0" \
  CELLS_D="2,8,8,3000,40,1 2,8,8,3000,48,1 2,8,8,3000,56,1 1,16,4,2900,40,1 1,16,16,16384,32,1 2,16,16,8192,16,1 1,32,8,8192,48,1" \
    bash $M/mf.sh $dt
done
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
