#!/bin/bash
# Call 17: confirm.py (bf16) on the D=80-96 cells the one-wave tail now caps (auto as shipped
# against its config under the half-L2 rule), then the tail's GPU tests (MHA, GQA, D=96).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/8; mkdir -p $R
S=benchmarks/results/2026-11-28-h100-tail-scope/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
OUT=$R DTYPE=bf16 PEERS=cudnn LONG_MS=600 CONFIRM_CELLS="16,16,16,1024,96 16,24,24,1024,80 8,16,16,2048,96" \
  timeout 150 python -u $S/confirm.py > $R/console-bf16.log 2>&1
echo "bf16 rc=$?"; grep -E "causal \(|   [aohc]" $R/console-bf16.log | cut -c1-190
timeout 150 python -m pytest -q -n 8 -p no:cacheprovider tests/kernels/test_gluon_fwd.py -m gpu \
  -k "persistent_causal_order or one_wave_tail" > $R/gpu-tests.log 2>&1
tail -2 $R/gpu-tests.log
