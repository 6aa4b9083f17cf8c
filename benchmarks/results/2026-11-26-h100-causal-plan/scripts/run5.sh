#!/bin/bash
# Device call of run 5: GPU tests through auto's dispatch, then auto against the schedule it replaced.
export PYTHONPATH=$PWD/src:$PYTHONPATH
R=benchmarks/results/2026-11-26-h100-causal-plan
mkdir -p $OUT/5
timeout 240 python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py tests/test_api.py tests/test_plans.py \
  -k "causal_plan or plan_in_a_cuda_graph or stream_k_pieces or auto or api or cuda_graph" > $OUT/5/gpu-tests.log 2>&1
tail -3 $OUT/5/gpu-tests.log
OUT=$OUT/5 CELLS=5 PEERS=1 timeout 300 python $R/scripts/cells.py 2>&1 | tee $OUT/5/cells.log | grep -v "^$" | grep -v ": ok" | tail -60
