#!/bin/bash
# Where D=32 rows on few heads spend their time: ncu's warp stalls, pipe use and issue rate for
# auto's config at B=2 H=8 S=3000 D=32 causal / full, against D=64 B=2 H=32 S=8k full (566 TF).
# Session 47's stalls.py launches one cell's auto config four times (--launch-skip 3).
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/stalls; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for spec in "2,8,8,3000,32 1 bf16" "2,8,8,3000,32 0 bf16" "2,32,32,8192,64 0 bf16"; do
  set -- $spec; tag=$(echo "$1-$2-$3" | tr ',' '_')
  CELL=$1 CAUSAL=$2 DTYPE=$3 timeout 150 $NCU --section WarpStateStats --section SpeedOfLight \
    --section ComputeWorkloadAnalysis --section SchedulerStats --metrics sm__cycles_active.max,sm__cycles_active.min,sm__cycles_active.avg \
    -k regex:gluon --launch-skip 3 --launch-count 1 --csv --page raw python $S/stalls.py > $R/$tag.csv 2> $R/$tag.err
  echo "$tag rc=$?"
done
python - $R <<'PY'
import csv, sys, os, glob
R = sys.argv[1]
vals, tags = {}, []
for p in sorted(glob.glob(os.path.join(R, "*.csv"))):
    tag = os.path.basename(p)[:-4]; tags.append(tag)
    rows = list(csv.reader([l for l in open(p) if l.startswith('"')]))
    for h, d in zip(rows[0], rows[2]):
        vals.setdefault(h, {})[tag] = d
keep = ("issue_stalled", "gpu__time_duration.sum", "pipe_", "issue_active", "sm__cycles_active", "warps_eligible",
        "sm__throughput", "inst_executed.avg.per_cycle")
print(" " * 70, " ".join(f"{t[-22:]:>22}" for t in tags))
for h, v in vals.items():
    if any(k in h for k in keep) and any(v.get(t) not in ("", None, "0") for t in tags):
        print(f"{h.replace('smsp__average_warps_issue_stalled_', '')[:70]:70}", " ".join(f"{v.get(t, ''):>22}" for t in tags))
PY
cd $OUT && tar czf stalls.tgz stalls
