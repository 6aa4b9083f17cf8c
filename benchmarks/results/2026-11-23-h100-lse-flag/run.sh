for r in 1 2; do
  for tag in constexpr runtime; do
    src=src; [ $tag = constexpr ] && src=.scratch/lseflag/old/src
    TAG=$tag-$r OUT=$OUT PYTHONPATH=$PWD/$src timeout 200 python3 .scratch/lseflag/time_portable.py >> $OUT/portable.log 2>&1
  done
done
python3 - <<'PY' >> $OUT/portable.log
import json, glob, os, collections
out = os.environ["OUT"]
t = collections.defaultdict(dict)
for f in glob.glob(f"{out}/portable-*.json"):
    tag = os.path.basename(f)[9:-5]
    for r in json.load(open(f)):
        t[r["case"]][tag] = r["us"]
for case, d in t.items():
    c = min(v for k, v in d.items() if k.startswith("constexpr")); n = min(v for k, v in d.items() if k.startswith("runtime"))
    print(f"{case:36s} constexpr {c:9.2f} runtime {n:9.2f} ratio {c / n:.3f}  {sorted(d.items())}")
PY
tail -n 22 $OUT/portable.log
