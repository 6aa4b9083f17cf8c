"""flashcore / best peer per cell, per preset geomean (graph or eager)."""
import json, math, sys
d = json.load(open(sys.argv[1])); mode = sys.argv[2] if len(sys.argv) > 2 else "graph"
recs = [r for r in d["records"] if r["mode"] == mode and r["status"] == "ok"]
cells = {}
for r in recs:
    key = (r["preset"], r["dtype"], r["B"], r["Hq"], r["Hkv"], r["Sq"], r["D"], r["causal"])
    cells.setdefault(key, {})[r["provider"]] = r
by = {}
for key, p in cells.items():
    fc = p.get("flashcore")
    peers = {n: r for n, r in p.items() if n != "flashcore" and r["correct"]}
    if not fc or not peers:
        continue
    name, best = min(peers.items(), key=lambda kv: kv[1]["median_us"])
    ratio = best["median_us"] / fc["median_us"]
    by.setdefault(key[0], []).append(ratio)
    pre, dt, b, h, hk, s, dd, c = key
    print(f"{pre:8s} {dt} B{b} H{h}/{hk} S{s} D{dd} {'C' if c else 'F'}  fc {fc['median_us']:9.2f} us {fc['tflops']:6.1f} TF"
          f"  best {name:10s} {best['median_us']:9.2f}  x{ratio:.3f}{'' if fc['correct'] else ' WRONG'}")
for pre, rs in by.items():
    g = math.exp(sum(map(math.log, rs)) / len(rs))
    print(f"{pre}: geomean x{g:.3f}, min {min(rs):.3f}, wins {sum(r >= 1 for r in rs)}/{len(rs)}")
