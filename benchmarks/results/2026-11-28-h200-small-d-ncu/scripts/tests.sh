#!/bin/bash
# GPU tests of the named turns as shipped (two consumer warpgroups): every 128x128 ping-pong
# config against the fp64 reference, the turn-hang test (now with a two-warpgroup cell), auto's
# 128x128-turn picks and the plans.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/tests; mkdir -p $R
python -c "from flashcore.bench.runner import source_digest; print(source_digest())" > $R/digest.txt 2>&1
K="128x128s2-ws-pp or ping_pong or turns or d80_d96 or whole_192x64 or one_wave or tail_of_waves or plan_in_a_cuda_graph or test_plans"
timeout ${KT:-450} python -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py tests/test_plans.py -n 14 -rfE \
  -p no:cacheprovider -k "$K" --junitxml=$R/tests.xml > $R/tests.log 2>&1
echo "rc=$? $(tail -n 1 $R/tests.log)"; grep -E "FAILED|ERROR" $R/tests.log | head -20
cd $OUT && tar czf r.tgz tests
