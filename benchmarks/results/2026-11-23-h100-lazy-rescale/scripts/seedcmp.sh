# Seed preset through the public API (bench provider flashcore, graph mode), de1b30d's package
# vs HEAD's, alternating twice; then the kernel-level paired A/B (ab2.py SEED=1 BASE_MODULE=1).
set -u
for i in 1 2; do
  for v in old new; do
    if [ $v = old ]; then P=$PWD/.scratch/old/src; else P=$PWD/src; fi
    PYTHONPATH=$P FLASHCORE_GIT_SHA=$v timeout 120 python3 -m flashcore.cli bench --preset seed --providers flashcore --mode graph --no-plots --out $OUT/seed-$v-$i > /dev/null 2>&1
    python3 - "$OUT/seed-$v-$i/bench.json" $v $i <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
print(sys.argv[2], sys.argv[3], " ".join(f"B{r['B']}{'C' if r['causal'] else 'F'} {r['median_us']:.2f}" for r in d["records"] if r["mode"] == "graph"))
PY
  done
done
PYTHONPATH=$PWD/src SEED=1 BASE_MODULE=1 ROUND_MS=40 ROUNDS=15 OUT=$OUT timeout 200 python3 .scratch/lazy/ab2.py 2>&1 | grep -v Warning
