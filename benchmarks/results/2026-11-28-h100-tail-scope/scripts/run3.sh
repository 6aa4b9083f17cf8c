#!/bin/bash
# Calls 3-4: every peer on the standard and GQA presets (graph mode), one dtype a call, as
# 2026-11-27-h100-packed-sums/scripts/run4.sh (the install done by call 2 on this machine).
set -u
DT=$1; R=$OUT/bench-$DT; mkdir -p $R
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $R/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
python -c "import flash_attn.cute, torch; print('fa4 ok', torch.__version__)" >> $R/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -m flashcore.cli bench --preset standard --preset gqa --dtype $DT \
  --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode graph --no-plots --time-limit 270 \
  --out $R/presets > $R/presets.log 2>&1
echo "bench rc=$?"; tail -3 $R/install.log; grep -E "geomean|records|correct" $R/*.log | tail -8
cd $OUT && tar czf bench-$DT.tgz bench-$DT && rm -rf bench-$DT
