#!/bin/bash
# Call 6: D=128 causal at 2k keys, 128x128 (auto) against the 192x64 tiles (two / three
# stages), each alone for 1200 ms (v51 and call 2 read three stages 1.026 / 1.020 with low
# ends under 1), on the standard cell and on B=4 H=32; both dtypes. parts.py's cell().
set -u
export PYTHONPATH=$PWD/src:$PWD/benchmarks/results/2026-11-27-h100-causal-parts/scripts:${PYTHONPATH:-}
R=$OUT/6-causal-2k; mkdir -p $R
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $R/gpu.txt
for dt in bf16 fp16; do
  OUT=$R DTYPE=$dt LONG_MS=1200 timeout 200 python -c "
import parts; from windows import run_cells
run_cells('causal2k', [(8, 16, 16, 2048, 128), (4, 32, 32, 2048, 128)], parts.cell)" \
    > $R/console-$dt.log 2>&1
  echo "$dt rc=$?"
done
cat $R/causal2k-*.log | grep -v "^ *$\|: ok"
