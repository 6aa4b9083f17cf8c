#!/bin/bash
# Device call of run 1: the GPU tests of the new path, then the cells.
export PYTHONPATH=$PWD/src:$PYTHONPATH
R=benchmarks/results/2026-11-26-h100-causal-plan
mkdir -p $OUT/1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/1/device.txt
timeout 200 python -m pytest -q -x -n 4 tests/kernels/test_gluon_fwd.py -k "causal_plan or plan_in_a_cuda_graph or stream_k_pieces" > $OUT/1/gpu-tests.log 2>&1
tail -3 $OUT/1/gpu-tests.log
OUT=$OUT/1 CELLS=1 timeout 330 python $R/scripts/cells.py 2>&1 | tee $OUT/1/cells.log | grep -v "^$" | tail -60
