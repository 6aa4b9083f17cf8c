export PYTHONPATH=$PWD/src FLASHCORE_GIT_SHA=$SHA
nvidia-smi --query-gpu=name,driver_version,clocks.sm,temperature.gpu --format=csv > $OUT/gpu.txt
timeout 280 python3 -m pytest -q -m gpu tests/kernels/test_gluon_fwd.py tests/test_plans.py -k "split or plan or small" -p no:cacheprovider > $OUT/gpu_tests.log 2>&1; tail -3 $OUT/gpu_tests.log
G256='flashcore-gluon[block_m=64,block_n=256,num_warps=4,num_stages=2]'
timeout 150 python3 -m flashcore.cli bench --preset seed --providers "flashcore,flashcore-triton,sdpa-cudnn,sdpa-flash,$G256" --mode both --out $OUT/seed --no-plots > $OUT/seed.log 2>&1
timeout 150 python3 -m flashcore.cli bench --shape 1,8,2048,64 --shape 1,4,4096,64 --shape 1,16,1024,128 --shape 1,8,2048,128 --shape 1,8,256,64,8,4096 --dtype fp16 --providers "flashcore,flashcore-triton,sdpa-cudnn" --mode both --out $OUT/small --no-plots > $OUT/small.log 2>&1
python3 - <<'PY' $OUT/seed/bench.json $OUT/small/bench.json
import json, sys, collections
for path in sys.argv[1:]:
    d = json.load(open(path)); cells = collections.defaultdict(dict)
    for r in d["records"]:
        if r.get("median_us") is None: continue
        cells[(r["D"], "C" if r["causal"] else "F", r["B"], r["Hq"], r["Sq"], r["Sk"], r["mode"])][r["provider"]] = (r["median_us"], r["correct"], r.get("note", ""))
    for k, c in cells.items():
        print(k, " ".join(f"{p.split('[')[0] + ('256' if '256' in p else '')}:{c[p][0]:.2f}{'' if c[p][1] else '!'}" for p in c), "|", c.get("flashcore", (0, 0, ""))[2][:70])
PY
