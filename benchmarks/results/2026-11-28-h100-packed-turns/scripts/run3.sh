#!/bin/bash
# Calls 17-18 (after the FA4 / CuTe DSL install of benchmarks/split_peers.py): every peer on the
# standard + GQA presets in one dtype ($1), graph mode; with $2 = dims, the dims preset too;
# then the new GPU test of call 2's rule (call 2's test run ran out of time).
set -u
DT=$1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export FLASHCORE_GIT_SHA=$(cat benchmarks/results/2026-11-28-h100-packed-turns/scripts/SHA)
R=$OUT/bench-$DT; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
PRESETS="--preset standard --preset gqa"; [ "${2:-}" = dims ] && PRESETS="$PRESETS --preset dims"
python -m flashcore.cli bench $PRESETS --dtype $DT --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 \
  --mode graph --no-plots --time-limit ${TL:-270} --out $R > $R/bench.log 2>&1
echo "bench rc=$?"; tail -4 $R/bench.log
python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/*.json 2>&1 | tail -3
if [ "$DT" = bf16 ]; then
  timeout 120 python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu -k "d80_d96 or d96_turns" > $R/gpu-tests.log 2>&1
  echo "tests rc=$?"; tail -2 $R/gpu-tests.log
fi
tar czf $OUT/bench-$DT.tgz -C $OUT bench-$DT
