import json, sys, math, collections
d = json.load(open(sys.argv[1]))
recs = d["records"] if isinstance(d, dict) else d
PEERS = ("sdpa-cudnn", "sdpa-flash", "fa4")
cells = collections.defaultdict(dict)
for r in recs:
    if r.get("median_us") is None: continue
    key = (r["preset"], r["mode"], r["D"], r["causal"], r["B"], r["Hq"], r["Hkv"], r["Sq"])
    cells[key][r["provider"]] = r
by = collections.defaultdict(list)
for key in sorted(cells):
    c = cells[key]
    peers = {p: c[p]["median_us"] for p in PEERS if p in c}
    if "flashcore" not in c or not peers: continue
    best = min(peers, key=peers.get)
    ratio = peers[best] / c["flashcore"]["median_us"]
    by[key[:2]].append(ratio)
    if len(sys.argv) > 2 and key[1] == sys.argv[2]:
        print(f"{key[0]:8s} {key[1]:5s} D{key[2]} {'C' if key[3] else 'F'} B{key[4]} H{key[5]}/{key[6]} S{key[7]:6d} fc {c['flashcore']['median_us']:9.1f} {c['flashcore']['tflops'] or 0:6.1f}TF best {best:10s} {peers[best]:9.1f} ratio {ratio:.3f}")
for k, v in by.items():
    print(k, f"geomean {math.exp(sum(map(math.log, v))/len(v)):.3f} n={len(v)} >=1: {sum(x>=1 for x in v)}")
