#!/bin/bash
# Device call of run 1: the GPU tests of the new path, then the cells.
export PYTHONPATH=$PWD/src:$PYTHONPATH
R=benchmarks/results/2026-11-26-h100-causal-plan
RUN=${RUN:-1}; mkdir -p $OUT/$RUN
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv > $OUT/$RUN/device.txt
timeout 200 python -m pytest -q -x -n 4 tests/kernels/test_gluon_fwd.py -k "causal_plan or plan_in_a_cuda_graph or stream_k_pieces" > $OUT/$RUN/gpu-tests.log 2>&1
tail -3 $OUT/$RUN/gpu-tests.log
OUT=$OUT/$RUN CELLS=${CELLS:-1} timeout 330 python $R/scripts/cells.py 2>&1 | tee $OUT/$RUN/cells.log | grep -v "^$" | tail -60
