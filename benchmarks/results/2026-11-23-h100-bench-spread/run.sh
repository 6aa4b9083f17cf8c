export PYTHONPATH=$PWD/src:$PYTHONPATH
export FLASHCORE_GIT_SHA=$1
A='flashcore-gluon[block_m=128,block_n=128,num_warps=8,num_stages=2,warp_specialize=true,persistent=true]'
B='flashcore-gluon[block_n=128,block_m=128,num_warps=8,num_stages=2,warp_specialize=true,persistent=true]'
C='flashcore-gluon[num_warps=8,block_m=128,block_n=128,num_stages=2,warp_specialize=true,persistent=true]'
D='flashcore-gluon[num_stages=2,block_m=128,block_n=128,num_warps=8,warp_specialize=true,persistent=true]'
for rep in 1 2; do
python3 -m flashcore.cli bench --shape 8,16,2048,128 --shape 4,16,4096,128 --shape 2,16,8192,128 --shape 16,16,1024,128 --shape 32,16,512,128 \
  --providers "$A,$B,$C,$D" --causal both --mode graph --sets 2 --no-plots --out $OUT/lean$rep > $OUT/lean$rep.log 2>&1
done
python3 - <<'PY'
import json, os, statistics
for rep in (1, 2):
    d = json.load(open(os.path.join(os.environ["OUT"], f"lean{rep}", "bench.json")))
    cells = {}
    for r in d["records"]:
        cells.setdefault((r["Sq"], r["causal"]), []).append(r)
    rat = [[] for _ in range(4)]
    for k, rs in sorted(cells.items()):
        t = [r["median_us"] for r in rs]
        base = statistics.mean(t)
        print(rep, k, " ".join(f"{x/base:.4f}" for x in t))
        for i, x in enumerate(t): rat[i].append(x / base)
    print(rep, "mean by position", " ".join(f"{statistics.mean(x):.4f}" for x in rat))
PY
