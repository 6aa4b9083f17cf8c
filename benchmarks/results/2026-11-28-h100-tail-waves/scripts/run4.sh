#!/bin/bash
# Calls 4-5: every peer on the dims preset and the build's other head dims at S=1k (graph mode),
# one dtype a call (the install done by call 3 on this machine).
set -u
DT=$1; R=$OUT/bench-dims-$DT; mkdir -p $R
[ -d /tmp/site/flash_attn ] || source .peers/p/install.sh > $R/install.log 2>&1
export PYTHONPATH=$PWD/src:/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -m flashcore.cli bench --preset dims --shape 16,28,1024,72 --shape 16,24,1024,88 --shape 16,20,1024,104 \
  --shape 16,18,1024,112 --shape 16,16,1024,120 --dtype $DT \
  --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 --mode graph --no-plots --time-limit 480 \
  --out $R/dims > $R/dims.log 2>&1
echo "bench rc=$?"; grep -E "geomean|records|correct" $R/*.log | tail -8
cd $OUT && tar czf bench-dims-$DT.tgz bench-dims-$DT && rm -rf bench-dims-$DT
