"""README tables (seed, standard) from one bench.json."""
import json, pathlib, math, sys
from flashcore.bench import report
D = pathlib.Path(sys.argv[1])
d = json.load(open(D / "bench.json")); recs = d["records"]
print(d["git_sha"], len(recs), "records", sum(r["correct"] for r in recs), "correct")
report.plot_tflops(recs, D); report.plot_speedup(recs, D)
def get(pre, mode, prov, **kw):
    for r in recs:
        if r["preset"] == pre and r["mode"] == mode and r["provider"] == prov and all(r[k] == v for k, v in kw.items()):
            return r
for b in (1, 2):
    for c in (False, True):
        g = lambda p, m="graph": get("seed", m, p, B=b, causal=c)["median_us"]
        print(f"| B={b} {'causal' if c else 'full'} | **{g('flashcore'):.1f} µs** | {g('sdpa-cudnn'):.1f} µs | {g('fa4'):.1f} µs | {g('flashcore','eager'):.1f} µs | {g('sdpa-cudnn','eager'):.1f} µs |")
rs = []
for dd in (64, 128):
    for s in (512, 1024, 2048, 4096, 8192, 16384):
        row = {}
        for c in (False, True):
            t = {p: get("standard", "graph", p, D=dd, Sq=s, causal=c) for p in ("flashcore", "sdpa-cudnn", "fa4", "sdpa-flash")}
            best = min((t[p]["median_us"] for p in ("sdpa-cudnn", "fa4", "sdpa-flash") if t[p]["correct"]))
            row[c] = (t, best / t["flashcore"]["median_us"])
            rs.append(row[c][1])
        f = lambda p: f"{row[False][0][p]['tflops']:.0f} / {row[True][0][p]['tflops']:.0f}"
        lab = f"{s // 1024}k" if s >= 1024 else str(s)
        print(f"| D={dd} S={lab} | {f('flashcore')} | {f('sdpa-cudnn')} | {f('fa4')} | {row[False][1]:.2f} / {row[True][1]:.2f} |")
print("geomean", math.exp(sum(map(math.log, rs)) / len(rs)))
