#!/bin/bash
# After benchmarks/split_peers.py's five carry calls (carry .peers/carry/install here): the odd
# preset with every peer, bf16, graph mode (its first H200 reading; the H100's was v63), then
# the CuTe kernel's GPU tests, which need the CuTe DSL that the carry installs (session 61
# found the gpu tier skipping them without it). SHA: the commit these scripts came with.
set -u
R=$OUT/odd; mkdir -p $R
source .peers/carry/install/install.sh > $R/install.log 2>&1
export PYTHONPATH=$PWD/src:$PYTHONPATH
export FLASHCORE_GIT_SHA=${SHA:-unknown}
python -c "import flash_attn.cute, cutlass, torch; print('fa4 ok', torch.__version__)" >> $R/install.log 2>&1
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
python -m flashcore.cli bench --preset odd --dtype bf16 --providers flashcore,sdpa-cudnn,sdpa-flash,fa4 \
  --mode graph --no-plots --time-limit ${TL:-200} --out $R > $R/bench.log 2>&1
echo "odd rc=$?"; tail -2 $R/install.log
python benchmarks/results/2026-11-28-h100-tail-waves/scripts/summary.py $R/bench.json 2>&1 | tail -45
T=$OUT/cute; mkdir -p $T
timeout ${KT:-300} python -m pytest -q -m gpu tests/kernels/test_cute_fwd.py -n ${NPROC:-8} -rfE \
  -p no:cacheprovider --junitxml=$T/cute.xml > $T/cute.log 2>&1
echo "cute rc=$? $(tail -n 1 $T/cute.log)"
cd $OUT && tar czf r.tgz odd cute
