#!/bin/bash
# Call 5 (tree with D=72-96 causal rows on the 192x64 tiles): the GPU tests of auto's causal
# 192x64 choice and of those tiles at the padded head dims; stress.py (fp16, 20 s) on the new
# cells; cost.py, old against new turn passes on full rows (bf16, alternating processes).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/5-parts-causal; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-turn-stress/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
timeout 200 python -m pytest -m gpu -q -p no:cacheprovider tests/kernels/test_gluon_fwd.py \
  -k "192x64_on_causal or (between_the_builds_against_reference and 192x64s3)" > $R/tests.log 2>&1
echo "tests rc=$?: $(tail -1 $R/tests.log)"; grep FAILED $R/tests.log | head -5
for c in 4,16,4096,80 2,16,8192,96 4,16,4096,72; do
  f=$R/stress-${c//,/-}.log
  CAUSAL=1 CELL=$c DTYPE=fp16 timeout 45 python -u $S/stress.py 20 > $f 2>&1
  echo "causal $c rc=$? $(head -1 $f | cut -c1-110) | $(tail -1 $f)"
done
for c in 2,16,8192,128 1,16,16384,128; do
  for v in new old new old; do
    CAUSAL=0 DTYPE=bf16 CELL=$c timeout 40 python -u $S/cost.py $v 40 2>&1 | tail -1 | tee -a $R/cost.log
  done
done
