#!/bin/bash
# One device call that reads a kernel patch against the tree it applies to: the GPU tests
# chosen by TESTS_K with the patch, then both trees in separate processes, A B B A (base,
# patched, patched, base), auto through the API, every run checked against the fp64
# reference, and a summary of auto's times (base over patched: above 1 the patch is faster).
#   PATCH=path/to.patch TESTS_K="D16 or d16" CELLS="b,hq,hkv,s,d,causal ..." \
#       bash benchmarks/patch_ab.sh      # on the device; writes $OUT/tests, $OUT/ab, $OUT/r.tgz
# Optional: DT (bf16), LONG_MS (200), KT (100 s a run), KT_TESTS (150 s), TESTS_FILE.
# Session 59's call1.sh / call2.sh (2026-11-28-h200-first-tile/scripts/) ran this by hand.
set -u
: "${PATCH:?PATCH=the patch to read}" "${CELLS:?CELLS=the cells to time}"
# cells.py, which variants.py imports, reads CELLS as its own preset name.
cells=$CELLS; unset CELLS
rm -rf /tmp/base_src && mkdir -p /tmp/base_src && cp -r src /tmp/base_src/
git apply "$PATCH" || exit 1
export PYTHONPATH=$PWD/src:${PYTHONPATH:-}
if [ -n "${TESTS_K:-}" ]; then
  mkdir -p $OUT/tests
  timeout ${KT_TESTS:-150} python -m pytest -q -n 8 ${TESTS_FILE:-tests/kernels/test_gluon_fwd.py} -m gpu \
    -k "$TESTS_K" > $OUT/tests/tests.log 2>&1
  echo "tests rc=$?"; tail -n 2 $OUT/tests/tests.log
fi
V=benchmarks/results/2026-11-28-h100-d16-gluon/scripts/variants.py
R=$OUT/ab; mkdir -p $R
i=0
for tree in base patched patched base; do
  i=$((i+1))
  if [ $tree = base ]; then src=/tmp/base_src/src; else src=$PWD/src; fi
  PYTHONPATH=$src OUT=$R DTYPE=${DT:-bf16} PEERS= LONG_MS=${LONG_MS:-200} NAME=$i-$tree BASE=auto VARIANTS="" \
    D16_CELLS="$cells" timeout ${KT:-100} python $V > $R/$i-$tree.log 2>&1
  echo "$i $tree rc=$?"
done
python - $R <<'PY' | tee $R/summary.txt
import glob, os, re, sys
times = {}
for f in sorted(glob.glob(os.path.join(sys.argv[1], "[0-9]-*.log"))):
    run, cell = os.path.basename(f)[:-4], None
    for line in open(f):
        if line.startswith("B"):
            cell = line.split(" (")[0]
        m = re.match(r"\s+auto\s+short\s+([\d.]+) us.*long\s+([\d.]+) us", line)
        if m and cell:
            times.setdefault(cell, {})[run] = (float(m.group(1)), float(m.group(2)))
def mean(runs, tree, i):
    vals = [v[i] for k, v in runs.items() if k.endswith(tree)]
    return sum(vals) / len(vals) if vals else None
print(f"{'cell':34} {'base short':>10} {'patch short':>11} {'ratio':>7}   {'base long':>9} {'patch long':>10} {'ratio':>7}")
for cell, runs in times.items():
    bs, ps, bl, pl = (mean(runs, t, i) for i in (0, 1) for t in ("base", "patched"))
    if None not in (bs, ps, bl, pl):
        print(f"{cell:34} {bs:10.1f} {ps:11.1f} {bs / ps:7.3f}   {bl:9.1f} {pl:10.1f} {bl / pl:7.3f}")
PY
cd $OUT && tar czf ../r.tgz . && mv ../r.tgz $OUT/
