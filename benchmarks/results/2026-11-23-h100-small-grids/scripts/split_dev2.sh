export PYTHONPATH=$PWD/src FLASHCORE_GIT_SHA=$SHA
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
G1='flashcore-gluon[block_m=64,block_n=128,num_warps=4,num_stages=2]'
G2='flashcore-gluon[block_m=64,block_n=64,num_warps=4,num_stages=3]'
G3='flashcore-gluon[block_m=64,block_n=128,num_warps=4,num_stages=3]'
S2B='flashcore-gluon[block_m=64,block_n=64,num_warps=8,num_stages=2,warp_specialize=1,split_kv=2]'
S2C='flashcore-gluon[block_m=64,block_n=64,num_warps=8,num_stages=3,warp_specialize=1,split_kv=2]'
S2D='flashcore-gluon[block_m=64,block_n=128,num_warps=8,num_stages=2,warp_specialize=1,split_kv=2]'
S4B='flashcore-gluon[block_m=64,block_n=64,num_warps=16,num_stages=2,warp_specialize=1,split_kv=4]'
P="flashcore,sdpa-cudnn,$G1,$G2,$G3,$S2B,$S2C,$S2D,$S4B"
timeout 200 python3 -m flashcore.cli bench --preset seed --providers "$P" --mode both --out $OUT/seed --no-plots > $OUT/seed.log 2>&1
python3 .scratch/cells.py $OUT/seed/bench.json > $OUT/seed_cells.txt
timeout 330 python3 -m flashcore.cli bench --shape 1,8,1024,64 --shape 1,8,2048,64 --shape 1,4,4096,64 --shape 2,8,1024,64 --shape 1,8,512,128 --shape 1,16,1024,128 --shape 1,8,2048,128 --shape 1,32,256,128 --shape 1,8,256,64,8,4096 --dtype fp16 --providers "$P" --mode graph --out $OUT/small --no-plots > $OUT/small.log 2>&1
python3 .scratch/cells.py $OUT/small/bench.json > $OUT/small_cells.txt
python3 - <<'PY' $OUT/seed/bench.json $OUT/small/bench.json
import json, sys, collections
for path in sys.argv[1:]:
    d = json.load(open(path)); cells = collections.defaultdict(dict)
    for r in d["records"]:
        if r.get("median_us") is None: continue
        cells[(r["D"], "C" if r["causal"] else "F", r["B"], r["Hq"], r["Sq"], r["Sk"], r["mode"])][r["provider"]] = (r["median_us"], r["correct"])
    for k, c in cells.items():
        best = min(c, key=lambda p: c[p][0])
        short = {p: p.split("[")[-1].replace("block_m=64,", "").replace(",warp_specialize=1", "").replace("num_warps=", "w").replace("num_stages=", "s").replace("block_n=", "n").rstrip("]") for p in c}
        print(k, " ".join(f"{short[p]}:{c[p][0]:.2f}{'' if c[p][1] else '!'}" for p in c), "BEST", short[best])
PY
