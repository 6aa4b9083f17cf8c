"""H100: each Gluon entry of src/flashcore/tuned/sm90.json against the heuristic config it replaces, on the
entry's own case, in CUDA graphs replayed alternately (ABBA rounds of ROUND_MS, default 300 ms: sustained clocks): median per-round ratio
heuristic/entry with p25-p75. Above 1: the entry is faster."""
import json, os, re, sys
import torch
from flashcore.kernels import gluon_fwd as gf

ROUNDS = int(os.environ.get("ROUNDS", "6"))
ROUND_MS = float(os.environ.get("ROUND_MS", "300"))


def graph(fn, calls):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for _ in range(2):
            fn()
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for _ in range(calls):
            fn()
    return g


def replay_us(g, calls):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); g.replay(); b.record(); b.synchronize()
    return a.elapsed_time(b) * 1e3 / calls


table = json.load(open("src/flashcore/tuned/sm90.json"))
rows = []
for key, entry in table["entries"].items():
    if not key.startswith("gluon:"):
        continue
    m = re.match(r"B(\d+) Hq(\d+) Hkv(\d+) Sq(\d+) Sk(\d+) D(\d+) (causal|full) (bf16|fp16)", entry["cases"][0])
    b, hq, hkv, sq, sk, d = map(int, m.groups()[:6])
    causal, dtype = m.group(7) == "causal", {"bf16": torch.bfloat16, "fp16": torch.float16}[m.group(8)]
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype)
    k, v = (torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype) for _ in range(2))
    cfgs = {"heuristic": gf.heuristic_config(90, d, 2, causal, sq, sk, b * hq), "entry": gf.Config(**entry["config"])}
    graphs = {}
    for tag, cfg in cfgs.items():
        fn = lambda cfg=cfg: gf.forward(q, k, v, causal, d ** -0.5, cfg)
        one = replay_us(graph(fn, 1), 1)
        calls = max(1, int(ROUND_MS * 1000 / one))
        graphs[tag] = (graph(fn, calls), calls)
    for tag in graphs:
        for _ in range(3):
            replay_us(*graphs[tag])
    times = {t: [] for t in graphs}
    for r in range(ROUNDS):
        order = ("heuristic", "entry", "entry", "heuristic") if r % 2 == 0 else ("entry", "heuristic", "heuristic", "entry")
        got = {t: [] for t in graphs}
        for t in order:
            got[t].append(replay_us(*graphs[t]))
        for t in got:
            times[t].append(sum(got[t]) / 2)
    ratios = sorted(h / e for h, e in zip(times["heuristic"], times["entry"]))
    med = lambda x: sorted(x)[len(x) // 2]
    row = dict(key=key, case=entry["cases"][0], heuristic=cfgs["heuristic"].as_dict(), entry=entry["config"],
               tuned_gain=round(entry["heuristic_us"] / entry["median_us"], 4) if entry.get("heuristic_us") else None,
               heuristic_us=med(times["heuristic"]), entry_us=med(times["entry"]), ratio=med(ratios),
               p25=ratios[len(ratios) // 4], p75=ratios[3 * len(ratios) // 4])
    rows.append(row)
    print(f"{key:32s} tuned gain {row['tuned_gain']}  paired {row['ratio']:.3f} [{row['p25']:.3f}, {row['p75']:.3f}]"
          f"  heuristic {row['heuristic_us']:.1f} us  entry {row['entry_us']:.1f} us", flush=True)
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "verify_table_sustained.json"), "w"), indent=1)
