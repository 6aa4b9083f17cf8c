#!/bin/bash
# Call 9: why one KV group at a time runs D=64 B=8 H=32 S=2k causal slower at ncu's fixed clocks
# (call 6: 484 against 394 us) while reading the least DRAM. group.py's ncu mode (tree / group)
# under Nsight Compute's speed-of-light, memory, scheduler and warp-state sections, then
# D=128 B=4 H=16 S=4k causal (where one group is the tree's order) for contrast.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/9-sections; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
SEC="--section SpeedOfLight --section MemoryWorkloadAnalysis --section SchedulerStats --section WarpStateStats --section Occupancy"
for var in tree group; do
  MODE=ncu VARIANT=$var timeout 150 $NCU $SEC -k regex:gluon --launch-skip 3 --launch-count 1 --csv --page details \
    python $S/group.py > $R/d64-s2k-$var.csv 2> $R/d64-s2k-$var.err
  echo "d64 s2k $var rc=$? $(wc -l < $R/d64-s2k-$var.csv) lines"
done
MODE=ncu VARIANT=tree CELL=4,16,16,4096,128 timeout 150 $NCU $SEC -k regex:gluon --launch-skip 3 --launch-count 1 \
  --csv --page details python $S/group.py > $R/d128-s4k-tree.csv 2> $R/d128-s4k-tree.err
echo "d128 s4k tree rc=$?"
python - $R <<'PY'
import csv, sys, os
R = sys.argv[1]
rows = {}
for f in ("d64-s2k-tree", "d64-s2k-group", "d128-s4k-tree"):
    p = os.path.join(R, f + ".csv")
    lines = [l for l in open(p) if l.startswith('"')]
    for r in csv.DictReader(lines):
        rows.setdefault((r["Section Name"], r["Metric Name"], r["Metric Unit"]), {})[f] = r["Metric Value"]
for (sec, name, unit), v in rows.items():
    print(f"{sec[:18]:18} {name[:58]:58} {unit[:8]:8} " + " | ".join(f"{v.get(k, ''):>14}" for k in ("d64-s2k-tree", "d64-s2k-group", "d128-s4k-tree")))
PY
cd $OUT && tar czf 9-sections.tgz 9-sections
