#!/bin/bash
# After calls that copied the CuTe DSL wheels (.peers/w) and the CUDA 13 library's chunks
# (.peers/c_cu13.d00-d06) to /tmp/peers, this one carries the last chunk and the installer
# (../../../shared/peers/fetch-fa4.sh's download, re-split to fit beside a 52 MiB tree).
set -u
cp .peers/c_cu13.d07/* /tmp/peers/
[ -d /tmp/site/nvidia_cutlass_dsl/cu13 ] || source .peers/p/install.sh > $OUT/install.log 2>&1
export PYTHONPATH=/tmp/site:/tmp/site/nvidia_cutlass_dsl/dsl_packages:${PYTHONPATH:-}
export PYTHONPATH=$PWD/src:$PYTHONPATH
S=benchmarks/results/2026-11-27-h100-seed-fma-exps/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $OUT/gpu.txt
timeout 400 python $S/fma_exps.py > $OUT/fma_exps.out 2>&1
echo "rc=$?"; grep -c ": ok" $OUT/fma_exps.log; grep -E "FAIL|checks:|^B" $OUT/fma_exps.log; tail -3 $OUT/fma_exps.out
