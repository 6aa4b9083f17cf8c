#!/bin/bash
# Call 27 (after the FA4 / CuTe DSL install of benchmarks/split_peers.py, calls 7-26): every peer
# on the causal D=16 / 24 / 32 rows that causal_packed_sums changed, both dtypes, graph mode.
set -u
HERE=benchmarks/results/2026-11-28-h100-d32-turns/scripts
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export FLASHCORE_GIT_SHA=$(cat $HERE/SHA)
for DT in bf16 fp16; do
  R=$OUT/bench-$DT; mkdir -p $R
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
  python -m flashcore.cli bench --shape 2,8,3000,32 --shape 2,8,3000,24 --shape 2,8,3000,16 --shape 1,8,16384,32 \
    --causal on --dtype $DT --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode graph --no-plots \
    --time-limit ${TL:-110} --out $R > $R/bench.log 2>&1
  echo "bench $DT rc=$?"; tail -2 $R/bench.log
  python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/*.json 2>&1 | tail -12
done
tar czf $OUT/bench.tgz -C $OUT bench-bf16 bench-fp16
