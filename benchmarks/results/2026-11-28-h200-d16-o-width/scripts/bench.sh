#!/bin/bash
# Calls 14-15: every peer on the standard and GQA presets through flashcore bench (graph mode),
# one dtype a call, after benchmarks/split_peers.py's five carry calls (install.sh sourced here):
# the first H200 run of these presets with FA4 in it (2026-11-28-h200-masked-free/ had SDPA only).
# Same method as the H100's 2026-11-27-h100-packed-sums/scripts/run4.sh.
set -u
DT=$1; R=$OUT/bench-$DT; mkdir -p $R
source .peers/carry/install/install.sh > $R/install.log 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH
export FLASHCORE_GIT_SHA=$(git rev-parse --short HEAD)
python -c "import flash_attn.cute, torch; print('fa4 ok', torch.__version__)" >> $R/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -m flashcore.cli bench --preset standard --preset gqa --dtype $DT \
  --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode graph --no-plots --time-limit ${TL:-300} \
  --out $R/presets > $R/presets.log 2>&1
echo "bench rc=$?"; tail -3 $R/install.log
python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/presets/bench.json 2>&1 | tail -${LINES_:-30}
cd $OUT && tar czf bench-$DT.tgz bench-$DT && rm -rf bench-$DT
