#!/bin/bash
# Call 11: the tree's stall reasons (ncu WarpStateStats, raw page) where the targets are short:
# D=64 B=2 H=32 S=8k full in fp16 and bf16, and D=128 B=4 H=16 S=4k causal in fp16.
set -u
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
R=$OUT/11-stalls; mkdir -p $R
S=benchmarks/results/2026-11-27-h100-late-draw/scripts
NCU=$(command -v ncu || ls /usr/local/cuda/bin/ncu /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | head -1)
for spec in "2,32,32,8192,64 0 fp16" "2,32,32,8192,64 0 bf16" "4,16,16,4096,128 1 fp16"; do
  set -- $spec; tag=$(echo "$1-$2-$3" | tr ',' '_')
  CELL=$1 CAUSAL=$2 DTYPE=$3 timeout 150 $NCU --section WarpStateStats --section SpeedOfLight -k regex:gluon \
    --launch-skip 3 --launch-count 1 --csv --page raw python $S/stalls.py > $R/$tag.csv 2> $R/$tag.err
  echo "$tag rc=$?"
done
python - $R <<'PY'
import csv, sys, os, glob
R = sys.argv[1]
vals, tags = {}, []
for p in sorted(glob.glob(os.path.join(R, "*.csv"))):
    tag = os.path.basename(p)[:-4]; tags.append(tag)
    lines = [l for l in open(p) if l.startswith('"')]
    rows = list(csv.reader(lines))
    for h, d in zip(rows[0], rows[2]):
        vals.setdefault(h, {})[tag] = d
print(" " * 70, " ".join(f"{t[-22:]:>22}" for t in tags))
for h, v in vals.items():
    if "issue_stalled" in h or "gpu__time_duration.sum" in h or h == "smsp__average_warps_active_per_inst_executed.ratio":
        print(f"{h.replace('smsp__average_warps_issue_stalled_', '')[:70]:70}", " ".join(f"{v.get(t, ''):>22}" for t in tags))
PY
cd $OUT && tar czf 11-stalls.tgz 11-stalls
