#!/bin/bash
# Call 7 (c211da2: the O store's row guard only on causal three-warpgroup launches; calls 4-6
# had it on every build, and the D=128 full 192x64 build spilled 56 B for it): the GPU tests
# of the 192x64 tiles (full and causal) against the reference, auto's 192x64 choices and the
# hang test, then every peer in bf16 (run4.sh; fp16 in call 8).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7-tests; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-lead/scripts
timeout 200 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "$(cat $S/tests7.k)" \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
(cd $OUT && tar czf 7-tests.tgz 7-tests && rm -rf 7-tests)
bash benchmarks/results/2026-11-27-h100-packed-sums/scripts/run4.sh bf16
