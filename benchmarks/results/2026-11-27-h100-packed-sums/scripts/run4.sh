#!/bin/bash
# Calls 4-5 and 7-8: every peer on the standard and GQA presets (graph mode), one dtype a call (copied from
# 2026-11-27-h100-short-causal; no seed preset: the seed does not run the changed tiles).
set -u
DT=$1; R=$OUT/bench-$DT; mkdir -p $R
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $R/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
python -c "import flash_attn.cute, torch; print('fa4 ok', torch.__version__)" >> $R/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -m flashcore.cli bench --preset standard --preset gqa --dtype $DT \
  --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode graph --no-plots --time-limit 270 \
  --out $R/presets > $R/presets.log 2>&1
tail -5 $R/install.log; grep -E "geomean|records|correct" $R/*.log | tail -8
cd $OUT && tar czf bench-$DT.tgz bench-$DT && rm -rf bench-$DT
