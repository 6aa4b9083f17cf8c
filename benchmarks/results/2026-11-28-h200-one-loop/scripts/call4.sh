#!/bin/bash
# Session 58, call 4: the tree before this session (3b3f74d, carried as .peers/old_src) against
# this one, auto through the API in separate processes, A B B A, each checked against the fp64
# reference (variants.py with no variants: 30 ms rounds of auto alone, then alone for LONG_MS).
# The cells: D=128's causal plans (cuts at B*H=8, pairs), which 2b7d78a's plan order also
# changed; the D=32 / 48 / 64 pairs (their masked-free rule changed too); a full-row control.
set -u
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
CELLS="1,8,8,4096,128,1 1,4,4,8192,128,1 1,16,16,2048,128,1 2,8,8,3000,64,1 2,8,8,3000,48,1 2,8,8,3000,32,1 2,8,8,3000,16,1 4,16,16,4096,128,0"
R=$OUT/ab; mkdir -p $R
i=0
for tree in old new new old; do
  i=$((i+1))
  if [ $tree = old ]; then src=$PWD/.peers/old_src/src; else src=$PWD/src; fi
  PYTHONPATH=$src OUT=$R DTYPE=${DT:-bf16} PEERS= LONG_MS=200 NAME=$i-$tree BASE=auto VARIANTS="" D16_CELLS="$CELLS" \
    timeout ${KT:-110} python $V > $R/$i-$tree.log 2>&1
  echo "$i $tree rc=$?"
done
python - $R <<'PY'
import re, sys, os, glob
R = sys.argv[1]
t = {}
for f in sorted(glob.glob(os.path.join(R, "*-*.log"))):
    run = os.path.basename(f)[:-4]
    cell = None
    for line in open(f):
        if line.startswith("B"):
            cell = line.split(" (")[0]
        m = re.match(r"\s+auto\s+short\s+([\d.]+) us.*long\s+([\d.]+) us", line)
        if m and cell:
            t.setdefault(cell, {})[run] = (float(m.group(1)), float(m.group(2)))
print(f"{'cell':34} {'old short':>10} {'new short':>10} {'old/new':>8}   {'old long':>9} {'new long':>9} {'old/new':>8}")
for cell, runs in t.items():
    old = [v for k, v in runs.items() if k.endswith("old")]
    new = [v for k, v in runs.items() if k.endswith("new")]
    if not old or not new:
        continue
    os_, ns = sum(v[0] for v in old) / len(old), sum(v[0] for v in new) / len(new)
    ol, nl = sum(v[1] for v in old) / len(old), sum(v[1] for v in new) / len(new)
    print(f"{cell:34} {os_:10.1f} {ns:10.1f} {os_ / ns:8.3f}   {ol:9.1f} {nl:9.1f} {ol / nl:8.3f}")
PY
