"""The odd preset per cell against the best peer (graph mode), from bench.csv, beside an older run.
argv: this run's bench.csv [, an older run's bench.csv]."""
import csv, math, sys
PEERS = ("sdpa-cudnn", "fa4", "sdpa-flash")


def load(p):
    cells = {}
    for r in csv.DictReader(open(p)):
        if r["mode"] == "graph" and r["preset"] == "odd":
            key = (int(r["D"]), int(r["Sq"]), r["causal"] == "True")
            cells.setdefault(key, {})[r["provider"]] = r
    return cells


def ratio(c):
    peers = {p: float(c[p]["median_us"]) for p in PEERS if p in c and c[p]["correct"] == "True"}
    best = min(peers, key=peers.get)
    return best, peers[best], peers[best] / float(c["flashcore"]["median_us"])


new = load(sys.argv[1]); old = load(sys.argv[2]) if len(sys.argv) > 2 else {}
g, go, n, no = 0.0, 0.0, 0, 0
print("| D | S | mask | flashcore us | best peer us | vs best peer | before |")
print("|---|---|---|---|---|---|---|")
for key in sorted(new):
    c = new[key]
    assert c["flashcore"]["correct"] == "True", key
    bp, bus, r = ratio(c)
    g += math.log(r); n += 1
    o = ""
    if key in old and "flashcore" in old[key]:
        ro = ratio(old[key])[2]; go += math.log(ro); no += 1; o = f"{ro:.2f}"
    d, s, causal = key
    print(f"| {d} | {s} | {'causal' if causal else 'full'} | {float(c['flashcore']['median_us']):.1f} | {bp} {bus:.1f} | **{r:.2f}** | {o} |")
print(f"geomean {math.exp(g / n):.3f} over {n}" + (f"; before {math.exp(go / no):.3f} over {no}" if no else ""))
