#!/bin/bash
# Call 3: the shipped heuristic (D=96 causal turns from 2k keys: packed_sums=1; at most 4k keys:
# one wave) against the one before ("old"), through prepare and through flashcore.attention,
# bf16 then fp16; then the GPU tests of auto's configs, the tails and the parts.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/3; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tune-trailing/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for DT in bf16 fp16; do
  OUT=$R DTYPE=$DT PEERS=cudnn LONG_MS=400 API=1 KNOB_NAME=shipped-$DT \
    KNOB_CELLS="4,16,16,4096,96,1 8,16,16,2048,96,1 4,32,8,4096,96,1 5,16,16,3000,96,1" \
    KNOB_VARIANTS="old:packed_sums=0,causal_tail=0" \
    timeout 170 python -u $S/knobs.py > $R/console-$DT.log 2>&1
  echo "$DT rc=$?"; grep -E "causal|   [a-z0-9]" $R/console-$DT.log | grep -v "^.*: ok" | cut -c1-180 | tail -24
done
timeout 230 python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu \
  -k "d96 or tail or parts or persistent_causal or auto_runs" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -3 $R/gpu-tests.log
tar czf $OUT/run3.tgz -C $OUT 3
