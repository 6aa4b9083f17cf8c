#!/bin/bash
# Call 2: energy.py (diagnostic) in bf16 and fp16: the tree against a copy that copies K and V
# for even key tiles only (half the L2-to-SM bytes, wrong output), and torch.mm, each alone
# for 800 ms with clock and power sampled.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/2-energy; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-q-split/scripts
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for DT in bf16 fp16; do
  OUT=$R DTYPE=$DT LONG_MS=800 timeout 250 python -u $S/energy.py > $R/console-$DT.log 2>&1
  echo "$DT rc=$?"; grep -E "causal \(|full \(|\^3|short" $R/console-$DT.log | cut -c1-200
done
cd $OUT && tar czf 2-energy.tgz 2-energy
