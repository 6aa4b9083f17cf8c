"""flashcore-nopdl / flashcore median per cell (graph mode): > 1 means PDL is faster."""
import json, sys, math, collections
recs = json.load(open(sys.argv[1]))["records"]
cells = collections.defaultdict(dict)
for r in recs:
    if r.get("median_us") is not None and r["mode"] == "graph":
        cells[(r["preset"], r["D"], r["causal"], r["B"], r["Hq"], r["Sq"])][r["provider"]] = r["median_us"]
by = collections.defaultdict(list)
for k, c in sorted(cells.items()):
    if "flashcore" in c and "flashcore-nopdl" in c:
        x = c["flashcore-nopdl"] / c["flashcore"]
        by[k[0]].append(x)
        print(k, f"{c['flashcore']:9.2f} nopdl {c['flashcore-nopdl']:9.2f} {x:.3f}")
for p, v in by.items():
    print(p, f"geomean {math.exp(sum(map(math.log, v)) / len(v)):.3f} min {min(v):.3f} max {max(v):.3f} n={len(v)}")
