#!/bin/bash
# After the FA4 install: confirm.py in fp16 (call 20 read the rule's cells in bf16) on four
# cells, with FA4; then the GPU tests of the rule. bash confirm.sh
set -u
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export DTYPE=${DTYPE:-fp16} PEERS=fa4 LONG_MS=${LONG_MS:-600}
R=$OUT/confirm; mkdir -p $R
OUT=$R CONFIRM_CELLS="${CONFIRM_CELLS:-2,8,8,3000,128,1 2,8,8,3000,88,1 1,16,16,4096,80,1 1,32,8,3000,128,1}" \
  timeout ${KT:-260} python benchmarks/results/2026-11-28-h100-odd-peers/scripts/confirm.py > $R/confirm.log 2>&1
echo "confirm rc=$?"; grep -h "^B\|^   [a-z]" $R/confirm-*.log | sed 's/  */ /g' | cut -c1-150
timeout 150 python -m pytest -q -n 4 tests/kernels/test_gluon_fwd.py -m gpu -k "few_causal or three_warpgroups_on_causal" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -3 $R/gpu-tests.log
tar czf $R.tgz -C $OUT confirm
