#!/bin/bash
# Call 5: the standard preset's causal rows through flashcore bench (graph mode) with masked_free_pays
# shipped, against cuDNN and PyTorch's flash SDPA (FA4 not installed this session), bf16, on an H200.
# SHA: the code's commit (the commits after it add evidence and scripts only).
set -u
HERE=benchmarks/results/2026-11-28-h200-masked-free/scripts
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
export FLASHCORE_GIT_SHA=$(cat $HERE/SHA)
R=$OUT/bench-bf16; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -m flashcore.cli bench --preset standard --causal on --dtype bf16 --providers flashcore,sdpa-cudnn,sdpa-flash \
  --mode graph --no-plots --time-limit ${TL:-240} --out $R > $R/bench.log 2>&1
echo "bench rc=$?"; tail -2 $R/bench.log
python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/*.json 2>&1 | tail -16
tar czf $OUT/bench.tgz -C $OUT bench-bf16
