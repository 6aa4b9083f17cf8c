#!/bin/bash
# Call 3: the tree with the late draw (gluon_fwd._ws_producer). GPU tests: the persistent causal
# configs against the reference, auto's causal choices, the plans and the orders
# (../../2026-11-27-h100-causal-lead/scripts/tests.k), the counters and graphs, then the
# ping-pong hang test (40000 / 20000 fp16 launches).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3-tests; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
K="$(cat benchmarks/results/2026-11-27-h100-causal-lead/scripts/tests.k) or cuda_graph or arena or never_hang"
timeout 540 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "$K" \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
cd $OUT && tar czf 3-tests.tgz 3-tests
