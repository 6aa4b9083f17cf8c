#!/bin/bash
# Call 6: the hang test on the lead's tree (the first block's warpgroups of padding now pass
# their tiles back at the top of each head), then turncost.py in bf16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/6-turncost; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-lead/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 150 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py -k never_hang > $R/tests.log 2>&1
echo "hang test rc=$?: $(tail -1 $R/tests.log)"
OUT=$R DTYPE=bf16 LONG_MS=600 timeout 300 python -u $S/turncost.py > $R/console-bf16.log 2>&1
echo "turncost rc=$?"; grep -E "(full|causal) \(|short" $R/console-bf16.log | cut -c1-200
cd $OUT && tar czf 6-turncost.tgz 6-turncost
