#!/bin/bash
# Every peer on the given presets in one dtype, graph mode (after the FA4 / CuTe DSL install of
# benchmarks/split_peers.py): bash bench.sh <dtype> <preset>...; TL: the bench's time limit (s).
set -u
DT=$1; shift
HERE=benchmarks/results/2026-11-28-h100-odd-peers/scripts
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export FLASHCORE_GIT_SHA=$(cat $HERE/SHA)
TAG=$DT-$(echo "$@" | tr ' ' '-'); R=$OUT/bench-$TAG; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
PRESETS=""; for p in "$@"; do PRESETS="$PRESETS --preset $p"; done
python -m flashcore.cli bench $PRESETS --dtype $DT --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 \
  --mode graph --no-plots --time-limit ${TL:-150} --out $R > $R/bench.log 2>&1
echo "bench $TAG rc=$?"; tail -3 $R/bench.log
python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/*.json 2>&1 | tail -40
tar czf $OUT/bench-$TAG.tgz -C $OUT bench-$TAG
