"""The dims preset per cell against the best peer (graph mode), from bench.csv, beside an older run.
argv: this run's bench.csv [, an older run's bench.csv]."""
import csv, math, sys
PEERS = ("sdpa-cudnn", "fa4", "sdpa-flash")
def load(p):
    rows = [r for r in csv.DictReader(open(p)) if r["mode"] == "graph" and r["preset"] == "dims"]
    cells = {}
    for r in rows:
        key = (int(r["D"]), int(r["Sq"]), r["causal"] == "True", int(r["B"]), int(r["Hq"]))
        cells.setdefault(key, {})[r["provider"]] = r
    return cells
new = load(sys.argv[1]); old = load(sys.argv[2]) if len(sys.argv) > 2 else {}
g, go, n = 0, 0, 0
print("| D | S | mask | flashcore TF | best peer | vs best peer | before (run 13) |")
print("|---|---|---|---|---|---|---|")
for key in sorted(new):
    c = new[key]
    assert c["flashcore"]["correct"] == "True", key
    peers = {p: float(c[p]["median_us"]) for p in PEERS if p in c and c[p]["correct"] == "True"}
    bp = min(peers, key=peers.get)
    r = peers[bp] / float(c["flashcore"]["median_us"])
    o = ""
    if key in old:
        co = old[key]; po = {p: float(co[p]["median_us"]) for p in PEERS if p in co and co[p]["correct"] == "True"}
        ro = min(po.values()) / float(co["flashcore"]["median_us"]); go += math.log(ro); o = f"{ro:.2f}"
    g += math.log(r); n += 1
    d, s, causal, b, h = key
    print(f"| {d} | {s} | {'causal' if causal else 'full'} | {float(c['flashcore']['tflops']):.0f} | {bp} {float(c[bp]['tflops']):.0f} | **{r:.2f}** | {o} |")
print(f"geomean {math.exp(g/n):.3f} over {n}; before {math.exp(go/n):.3f}" if old else f"geomean {math.exp(g/n):.3f}")
