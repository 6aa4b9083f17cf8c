#!/bin/bash
# Call 7: the shipped one-wave tail against the half-L2 rule (tails.py, bf16 and fp16) on D=128
# causal S=1k and 2k; the GPU tests of the persistent causal order; the bench on the
# standard cells it changes, with cuDNN.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/7; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-s512-dram/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt PEERS=cudnn LONG_MS=600 TAIL_CELLS="16,16,1024,128 8,16,2048,128" \
    timeout 200 python -u $S/tails.py > $R/console-$dt.log 2>&1
  echo "$dt rc=$?"; grep -E "causal \(|   [ahc]" $R/console-$dt.log | cut -c1-190
done
timeout 150 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_gluon_fwd.py -m gpu \
  -k "persistent_causal_order or one_wave_tail or plan_in_a_cuda_graph or plan_runs_read" > $R/gpu-tests.log 2>&1
tail -2 $R/gpu-tests.log
timeout 100 python -m flashcore.cli bench --shape 16,16,1024,128 --shape 8,16,2048,128 --causal on --dtype bf16 \
  --providers flashcore,sdpa-cudnn --mode graph --no-plots --out $R/bench-bf16 > $R/bench-bf16.log 2>&1
echo "bench rc=$?"; grep -E "✓|✗" $R/bench-bf16.log | cut -c1-200
