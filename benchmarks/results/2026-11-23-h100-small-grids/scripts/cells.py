"""Per case: every provider's median (p10-p90) and correctness, short names."""
import json, sys, collections
for path in sys.argv[1:]:
    d = json.load(open(path))
    cells = collections.defaultdict(list)
    for r in d["records"]:
        key = (r["dtype"], r["D"], "C" if r["causal"] else "F", r["B"], r["Hq"], r["Hkv"], r["Sq"], r["Sk"], r["mode"])
        cells[key].append(r)
    for key, rs in cells.items():
        print(" ".join(map(str, key)))
        for r in rs:
            name = r["provider"].replace("flashcore-gluon[block_m=64,", "g[").replace(",warp_specialize=1", "").replace("num_warps=", "w").replace("num_stages=", "s").replace("block_n=", "n")
            med = r.get("median_us")
            print(f"   {name:60s} {med if med is None else round(med, 2)!s:>8s} [{r.get('p10_us') or 0:.2f},{r.get('p90_us') or 0:.2f}] ok={r.get('correct')} {r.get('status')} {r.get('error','')[:60]}")
