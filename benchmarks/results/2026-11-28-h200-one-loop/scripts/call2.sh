#!/bin/bash
# Session 58, call 2. Call 1 turned v66's reads around: with _tile_coords' plan order (2b7d78a)
# masked-free tiles read 1.05-1.08 on the D=32 build's pairs (v66: 0.965) and 0.95 on D=64's
# (v66: 1.054), and auto's D=64 pairs ran 44.7 us (v66: 46.5-47.6). A code-layout effect?
# 1. ncu, WarpStateStats (raw, every warp): D=32 and D=64 pairs, bf16, masked_free 0 / 1; the
#    instruction-fetch stall is the suspect.
# 2. Call 1's variants in fp16 (without one_loop, which trailed masked_free in every cell).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
H=benchmarks/results/2026-11-28-h200-one-loop/scripts
M=benchmarks/results/2026-11-28-h200-masked-free/scripts
R=$OUT/stalls; mkdir -p $R
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for d in 32 64; do for mf in 0 1; do
  CELL=2,8,8,3000,$d CAUSAL=1 FIELDS=masked_free=$mf timeout 90 $NCU --section WarpStateStats --section InstructionStats \
    --metrics smsp__warp_issue_stalled_no_instruction_per_warp_active.pct,gpu__time_duration.sum \
    -k regex:gluon --launch-skip 3 --launch-count 1 --csv --page raw python $H/launch.py > $R/d$d-mf$mf.csv 2> $R/d$d-mf$mf.err
  echo "ncu d$d mf$mf rc=$?"
done; done
python - $R <<'PY'
import csv, os, sys
R = sys.argv[1]
vals = {}
names = [f"d{d}-mf{m}" for d in (32, 64) for m in (0, 1)]
for f in names:
    lines = [l for l in open(os.path.join(R, f + ".csv")) if l.startswith('"')]
    if len(lines) < 3:
        continue
    head, _, data = list(csv.reader(lines))[:3]
    for h, x in zip(head, data):
        vals.setdefault(h, {})[f] = x
print(f"{'metric':70}" + "".join(f"{n:>12}" for n in names))
for h, v in vals.items():
    if ("stalled" in h and "ratio" in h) or "no_instruction" in h or "duration" in h or "inst_executed.sum" in h:
        print(f"{h[:70]:70}" + "".join(f"{v.get(n, '')[:11]:>12}" for n in names))
PY
TAG=oneloop LONG_MS=300 KT=${KT1:-130} VARS="mf:masked_free=1" \
CELLS_D="2,8,8,3000,16,1 2,8,8,3000,24,1 2,8,8,3000,32,1 1,32,8,8192,32,1" bash $M/mf.sh fp16
TAG=mf64 LONG_MS=300 KT=${KT2:-130} VARS="mf:masked_free=1" \
CELLS_D="2,8,8,3000,64,1 1,16,4,3000,64,1 2,16,16,3000,64,1 4,32,32,4096,64,1" bash $M/mf.sh fp16
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
