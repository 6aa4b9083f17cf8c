#!/bin/bash
# Call 2: the shipped rule (D=80 / 96 causal 128x128 turns sum the packed P from 513 keys)
# against the config before it ("old": packed_sums=0), through prepare and through
# flashcore.attention, bf16 then fp16, alone 600 ms / 30 ms paired; then the GPU tests of
# auto's configs, the parts and the tails.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tune-trailing/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for DT in bf16 fp16; do
  OUT=$R DTYPE=$DT PEERS=cudnn LONG_MS=600 API=1 KNOB_NAME=shipped-$DT \
    KNOB_CELLS="16,24,24,1024,80,1 8,24,24,2048,80,1 16,16,16,1024,96,1 8,32,8,1024,80,1 6,24,24,1500,80,1" \
    KNOB_VARIANTS="old:packed_sums=0" \
    timeout 200 python -u $S/knobs.py > $R/console-$DT.log 2>&1
  echo "$DT rc=$?"; grep -E "causal|   [a-z0-9]" $R/console-$DT.log | grep -v "^.*: ok" | cut -c1-175 | tail -25
done
timeout 160 python -m pytest -q -n 8 tests/kernels/test_gluon_fwd.py -m gpu \
  -k "packed or parts or tail or persistent_causal or auto_runs" > $R/gpu-tests.log 2>&1
echo "tests rc=$?"; tail -3 $R/gpu-tests.log
tar czf $OUT/run2.tgz -C $OUT 2
