#!/bin/bash
# Call 10 (d4dc327: the lead decided per build, on the kernels and on the host; none on the D=32
# build): causal 192-row blocks at the head dims between the builds (D=32 and D=40 among them),
# auto's causal 192-row choices and the causal plans, against the reference.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/10-tests; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-lead/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 400 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "$(cat $S/tests10.k)" -rs \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep -E "FAILED|SKIPPED" $R/tests.log | head -8
