#!/bin/bash
# Call 3: the causal plan tests call 2 did not reach (its test window ran out after 50 of 56,
# all passed), lead.py in fp16 on call 2's cells, then bf16 again on D=128 S=4k / 2k and GQA.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3-lead; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-causal-lead/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 120 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py \
  -k "causal_plan_pieces or (plan_in_a_cuda_graph and causal)" > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
OUT=$R DTYPE=fp16 LONG_MS=600 timeout 300 python -u $S/lead.py > $R/console-fp16.log 2>&1
echo "lead fp16 rc=$?"; grep -E "causal \(|short" $R/console-fp16.log | cut -c1-200
mkdir -p $R/bf16
OUT=$R/bf16 DTYPE=bf16 LONG_MS=600 timeout 120 python -u $S/lead.py 4,16,16,4096,128 8,16,16,2048,128 4,32,8,4096,128 \
  > $R/bf16/console-bf16.log 2>&1
echo "lead bf16 rc=$?"; grep -E "causal \(|short" $R/bf16/console-bf16.log | cut -c1-200
cd $OUT && tar czf 3-lead.tgz 3-lead
