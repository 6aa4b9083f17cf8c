#!/bin/bash
# Every peer on D=16 after it moved to the Gluon D=32 build (and stage1_lags' D=16 rule), graph
# mode, after the FA4 / CuTe DSL install of benchmarks/split_peers.py. SHA: the code's commit
# (the commits after it add evidence and scripts only).
set -u
HERE=benchmarks/results/2026-11-28-h100-d16-gluon/scripts
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export FLASHCORE_GIT_SHA=$(cat $HERE/SHA)
run() {  # dtype, causal, time limit, shapes...
  local DT=$1 C=$2 TL=$3; shift 3
  R=$OUT/bench-$DT; mkdir -p $R
  nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
  python -m flashcore.cli bench "$@" --causal $C --dtype $DT --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 \
    --mode graph --no-plots --time-limit $TL --out $R > $R/bench.log 2>&1
  echo "bench $DT rc=$?"; tail -2 $R/bench.log
  python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/*.json 2>&1 | tail -12
}
run bf16 both ${TL:-170} --shape 2,8,3000,16 --shape 1,8,16384,16 --shape 16,128,1024,16
run fp16 on ${TL2:-90} --shape 2,8,3000,16 --shape 16,128,1024,16
tar czf $OUT/bench.tgz -C $OUT bench-bf16 bench-fp16
