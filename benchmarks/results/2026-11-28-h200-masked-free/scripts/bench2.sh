#!/bin/bash
# Call 6: the rest of the H200 standings, same code and method as bench.sh (call 5): the standard
# preset's full rows, the gqa preset and the odd preset (both masks), bf16, against cuDNN and
# PyTorch's flash SDPA (FA4 not installed this session).
set -u
HERE=benchmarks/results/2026-11-28-h200-masked-free/scripts
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export FLASHCORE_GIT_SHA=$(cat $HERE/SHA)
run() {  # name, time limit, bench arguments...
  local N=$1 TL=$2; shift 2
  R=$OUT/$N; mkdir -p $R
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
  python -m flashcore.cli bench "$@" --dtype bf16 --providers flashcore,sdpa-cudnn,sdpa-flash \
    --mode graph --no-plots --time-limit $TL --out $R > $R/bench.log 2>&1
  echo "$N rc=$?"
  python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/*.json 2>&1 | tail -${LINES_:-17}
}
run standard-full 110 --preset standard --causal off
run gqa 110 --preset gqa --causal both
run odd 90 --preset odd --causal both
tar czf $OUT/bench2.tgz -C $OUT standard-full gqa odd
