#!/bin/bash
# Call 10: the stall reasons behind call 9's lower issue rate of one KV group at D=64 B=8 H=32
# S=2k causal: ncu's WarpStateStats section, raw page (every warp of the CTA, producer included).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/10-stalls; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for var in tree group; do
  MODE=ncu VARIANT=$var timeout 150 $NCU --section WarpStateStats --section MemoryWorkloadAnalysis_Tables \
    -k regex:gluon --launch-skip 3 --launch-count 1 --csv --page raw python $S/group.py > $R/d64-s2k-$var.csv 2> $R/d64-s2k-$var.err
  echo "d64 s2k $var rc=$?"
done
python - $R <<'PY'
import csv, sys, os
R = sys.argv[1]
vals = {}
for f in ("tree", "group"):
    lines = [l for l in open(os.path.join(R, f"d64-s2k-{f}.csv")) if l.startswith('"')]
    rows = list(csv.reader(lines))
    head, units, data = rows[0], rows[1], rows[2]
    for h, u, d in zip(head, units, data):
        vals.setdefault(h, {})[f] = (d, u)
for h, v in vals.items():
    if "stalled" in h or "lts__" in h or "dram__" in h or "duration" in h or "inst_executed" in h:
        t, g = v.get("tree", ("", ""))[0], v.get("group", ("", ""))[0]
        print(f"{h[:88]:88} {t:>16} {g:>16}")
PY
cd $OUT && tar czf 10-stalls.tgz 10-stalls
