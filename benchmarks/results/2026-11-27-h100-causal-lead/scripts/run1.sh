#!/bin/bash
# Call 1: lead.py in bf16 on the standard preset's causal cells of 192-row blocks (D=128 and
# D=64, S=2k-16k), then the GPU tests of the causal warp-specialised launches (tests.k).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/1-lead; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-lead/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 LONG_MS=600 timeout 320 python -u $S/lead.py > $R/console-bf16.log 2>&1
echo "lead bf16 rc=$?"; grep -E "causal \(|short" $R/console-bf16.log | cut -c1-200
timeout 200 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k "$(cat $S/tests.k)" \
  > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
cd $OUT && tar czf 1-lead.tgz 1-lead
