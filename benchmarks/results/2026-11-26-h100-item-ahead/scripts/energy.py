"""Energy per standard cell from a bench.json's per-record clock and power: board power x
median time, and SM cycles = clock x time, each as flashcore's over a peer's. The same cell's
providers are timed in alternating rounds, so each record's clock and power are its own
kernel's under the same conditions. Usage: energy.py BENCH_DIR [PEER]

Void for these benches' power (kernel log v38): they sampled nvidia-smi's power.draw, a
one-second running average, so each record's power is mostly its neighbours'. Kept to show
what the reading was."""
import collections
import json
import math
import os
import sys

d = json.load(open(os.path.join(sys.argv[1], "bench.json")))
peer = sys.argv[2] if len(sys.argv) > 2 else "fa4"
cells = collections.defaultdict(dict)
for r in d["records"]:
    if r["preset"] == "standard" and r["sm_mhz"] and r["power_w"]:
        cells[(r["D"], r["Sq"], r["causal"])][r["provider"]] = r
energy, cycles, time = [], [], []
print(f"| cell | flashcore MHz / W | {peer} MHz / W | time | SM cycles | energy |")
print("|---|---|---|---|---|---|")
for (dim, s, causal), c in sorted(cells.items()):
    f, p = c["flashcore"], c[peer]
    t = f["median_us"] / p["median_us"]
    cyc = t * f["sm_mhz"] / p["sm_mhz"]
    e = t * f["power_w"] / p["power_w"]
    energy.append(e)
    cycles.append(cyc)
    time.append(t)
    print(f"| D={dim} S={s} {'causal' if causal else 'full'} | {f['sm_mhz']:.0f} / {f['power_w']:.0f} | "
          f"{p['sm_mhz']:.0f} / {p['power_w']:.0f} | {t:.3f} | {cyc:.3f} | {e:.3f} |")


def geo(x):
    return math.exp(sum(map(math.log, x)) / len(x))


print(f"geomean flashcore / {peer}: time {geo(time):.3f}, SM cycles {geo(cycles):.3f}, energy {geo(energy):.3f}")
