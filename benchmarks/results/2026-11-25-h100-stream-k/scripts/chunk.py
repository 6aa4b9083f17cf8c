"""H100: causal persistent items, longest first within chunks of heads: chunk size A/B.
Per case the shipped gluon_fwd config (dispatch), prepared with causal_chunk scaled by
each factor (0 = one chunk of all heads); same binary (chunk is a runtime int). Graphs of
~ROUND_MS of back-to-back calls on 4 rotating input sets, replayed round robin for ROUNDS
rounds (order reversed every other round). Ratio: default chunk's time / this one's per
round (> 1: faster than the default); median [min, max]. First and last heads judged."""
import json, os
import torch
from flashcore.kernels import gluon_fwd as gf
from flashcore import dispatch
from flashcore.bench.correctness import judge

ROUND_MS, ROUNDS = float(os.environ.get("ROUND_MS", "60")), int(os.environ.get("ROUNDS", "25"))
B16 = torch.bfloat16
T = 16384
CASES = [(T // s, 16, 16, s, 128) for s in (2048, 4096, 8192, 16384)]
CASES += [(T // s, 32, 8, s, 128) for s in (4096, 16384)]
CASES += [(T // s, 32, 32, s, 64) for s in (8192, 16384)]
FACTORS = [float(f) for f in os.environ.get("FACTORS", "1,0.5,2,4,0").split(",")]
if os.environ.get("ONLY"):
    CASES = [CASES[int(i)] for i in os.environ["ONLY"].split(",")]
default_chunk = gf.causal_chunk


def graph(fn, calls):
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(2):
            fn(i)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn(i)
    return g


def replay_us(g, calls):
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); g.replay(); b.record(); b.synchronize()
    return a.elapsed_time(b) * 1e3 / calls


def ends(t):
    return (t[:1, :1], t[-1:, -1:])


rows = []
for b, h, hk, s, d in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, hh, s, d, device="cuda", dtype=B16) for hh in (h, hk, hk)) for _ in range(4)]
    cfg = dispatch.kernel_config("gluon", 90, B16, d, True, s, s, b * h)
    graphs, oks, chunks = [], [], []
    for f in FACTORS:
        def scaled(*a, f=f):
            c = default_chunk(*a)
            return b * h if f == 0 else max(1, int(c * f))
        gf.causal_chunk = scaled
        chunks.append(scaled(s, d, 2, h // hk, gf._device_facts(0)[1]))
        run = gf.prepare(*sets[0], True, d ** -0.5, cfg)
        gf.causal_chunk = default_chunk
        out, lse = run(*sets[1])
        out.fill_(float("nan")); lse.fill_(float("nan"))
        out, lse = run(*sets[1])
        q, k, v = sets[1]
        oks.append(all(judge(o, qq, kk, vv, causal=True, lse=ll).ok
                       for o, qq, kk, vv, ll in zip(ends(out), ends(q), ends(k), ends(v), ends(lse))))
        fn = lambda i, run=run: run(*sets[i % 4])
        one = replay_us(graph(fn, 8), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    for g in graphs:
        replay_us(*g)
    n = len(graphs)
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(n) if r % 2 == 0 else reversed(range(n))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    case = f"B{b} H{h}/{hk} S{s} D{d} causal"
    row = dict(case=case, config=cfg.as_dict(), ok=oks, chunks=chunks, factors=FACTORS, round_ms=ROUND_MS,
               rounds=ROUNDS, times=times)
    text = f"{case:30s}"
    for f, c, t in zip(FACTORS, chunks, times):
        ratios = sorted(t0 / t1 for t0, t1 in zip(times[0], t))
        row.setdefault("summary", []).append(dict(factor=f, chunk=c, us=med(t), ratio=med(ratios), lo=ratios[0],
                                                  hi=ratios[-1]))
        text += f" | c{c} {med(t):8.1f}" + (f" {med(ratios):.3f} [{ratios[0]:.3f},{ratios[-1]:.3f}]" if t is not times[0] else "")
    rows.append(row)
    print(text + ("" if all(oks) else " FAIL " + str(oks)), flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "chunk.json"), "w"), indent=1)
