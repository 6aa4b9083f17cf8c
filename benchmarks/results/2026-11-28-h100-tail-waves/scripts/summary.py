"""A bench run's table: per cell flashcore's and each peer's TFLOP/s, flashcore over the best
peer, and the geometric mean per preset ("custom": --shape cells) and over all.
python summary.py <bench.json>..."""
import json
import math
import sys

for path in sys.argv[1:]:
    data = json.load(open(path))
    cells = {}
    for r in data["records"]:
        key = (r["B"], r["Hq"], r["Sq"], r["D"], r["causal"], r["preset"])
        cells.setdefault(key, {})[r["provider"]] = r
    print(f"{path}: git {data['git_sha']} digest {data.get('source_digest')} {data['device']} {data['versions']}")
    ratios, by_preset, correct = [], {}, 0
    for key, recs in sorted(cells.items(), key=lambda kv: (kv[0][3], kv[0][2], kv[0][4])):
        correct += sum(bool(r["correct"]) for r in recs.values())
        fc = recs["flashcore"]
        peers = {p: r for p, r in recs.items() if p != "flashcore" and r["correct"]}
        best = min(peers, key=lambda p: peers[p]["median_us"])
        ratio = peers[best]["median_us"] / fc["median_us"]
        ratios.append(ratio)
        by_preset.setdefault(key[5], []).append(ratio)
        tf = " / ".join(f"{p} {r['tflops']:.0f}" for p, r in sorted(peers.items()))
        print(f"B{key[0]} H{key[1]} S{key[2]} D{key[3]} {'causal' if key[4] else 'full  '} {key[5]:6s} "
              f"flashcore {fc['tflops']:.0f} TF ({fc['median_us']:.1f} us) | {tf} | {ratio:.3f} of {best}")
    geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs))  # noqa: E731
    presets = "; ".join(f"{name} {len(rs)} cells geomean {geo(rs):.3f} ({sum(r >= 1 for r in rs)} >= 1)"
                        for name, rs in by_preset.items())
    print(f"records {len(data['records'])}, correct {correct}; {presets}; all {len(ratios)} cells "
          f"{geo(ratios):.3f} ({sum(r >= 1 for r in ratios)} >= 1)")
