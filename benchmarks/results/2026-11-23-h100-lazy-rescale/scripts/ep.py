"""H100: what stage 1's epilogue and ring depth cost on the short large-grid cells (probe).
Variants per cell, paired CUDA-graph rounds (~ROUND_MS, ROUNDS, order reversed every other
round), ratio = first variant's time / this one's (> 1: faster):
  heur: the dispatch heuristic's config;
  s1-*: stage 1 configs (64x64 / 64x32 tiles, 1-2 stages: more CTAs per SM);
  nowait (probe, unsafe): stage 1 without the final TMA store wait (the CTA may exit before
  the copy engine has read O from shared memory);
  nostore (probe, wrong): stage 1 without O's store at all, an upper bound on the epilogue.
Correctness (fp64 reference, poisoned outputs, LSE, last 1024 rows of one head) for every
variant but the probes."""
import json, os, sys, importlib.util, dataclasses
import torch
from flashcore.kernels import gluon_fwd as gf
from flashcore.bench.correctness import judge, poisoned_like

def load(name):
    spec = importlib.util.spec_from_file_location(f"flashcore.kernels.{name}", os.path.join(os.path.dirname(__file__), f"{name}.py"))
    m = importlib.util.module_from_spec(spec); sys.modules[spec.name] = m; spec.loader.exec_module(m); return m
nowait, nostore = load("gf_nowait"), load("gf_nostore")
ROUND_MS, ROUNDS = float(os.environ.get("ROUND_MS", "200")), int(os.environ.get("ROUNDS", "9"))
B16 = torch.bfloat16
C = gf.Config
s64 = C(64, 64, 4, 2)
CASES = [  # b, h, s, d, causal, variants
    (32, 16, 512, 128, True, [("s1-64x64s1", gf, C(64, 64, 4, 1)), ("s1-64x32s2", gf, C(64, 32, 4, 2)),
                              ("nowait", nowait, s64), ("nostore", nostore, s64)]),
    (16, 16, 1024, 128, True, [("s1-64x64s2", gf, s64), ("s1-64x64s1", gf, C(64, 64, 4, 1)),
                               ("p128x64", gf, C(128, 64, 8, 2, True, persistent=True)),
                               ("nowait", nowait, s64), ("nostore", nostore, s64)]),
    (32, 16, 512, 128, False, [("s1-64x64s2", gf, s64), ("s1-64x64s3", gf, C(64, 64, 4, 3)),
                               ("s1-64x64s1", gf, C(64, 64, 4, 1)), ("nowait", nowait, s64), ("nostore", nostore, s64)]),
    (32, 32, 512, 64, False, [("s1-64x64s2", gf, s64), ("nowait", nowait, C(64, 128, 4, 2)),
                              ("nostore", nostore, C(64, 128, 4, 2))]),
    (32, 32, 512, 64, True, [("s1-64x128s2", gf, C(64, 128, 4, 2)), ("nowait", nowait, s64), ("nostore", nostore, s64)]),
]
if os.environ.get("CONFIRM"):
    CASES = [(32, 16, 512, 128, True, [("s1-64x32s2", gf, C(64, 32, 4, 2)), ("s1-64x64s1", gf, C(64, 64, 4, 1)),
                                       ("s1-64x32s1", gf, C(64, 32, 4, 1))]),
             (16, 16, 1024, 128, True, [("s1-64x64s1", gf, C(64, 64, 4, 1)), ("s1-64x32s2", gf, C(64, 32, 4, 2))]),
             (8, 16, 2048, 128, True, [("s1-64x64s1", gf, C(64, 64, 4, 1)), ("s1-64x32s2", gf, C(64, 32, 4, 2))])]
if os.environ.get("PERSIST"):
    P = lambda *a, **k: C(*a, persistent=True, **k)
    CASES = [(32, 16, 512, 128, True, [("p-64x32s2", gf, P(64, 32, 4, 2)), ("p-64x64s1", gf, P(64, 64, 4, 1)),
                                       ("p-64x64s2", gf, P(64, 64, 4, 2))]),
             (16, 16, 1024, 128, True, [("p-64x64s1", gf, P(64, 64, 4, 1)), ("p-64x32s2", gf, P(64, 32, 4, 2))]),
             (32, 16, 512, 128, False, [("p-64x64s2", gf, P(64, 64, 4, 2)), ("p-64x128s1", gf, P(64, 128, 4, 1))]),
             (32, 32, 512, 64, False, [("p-64x128s2", gf, P(64, 128, 4, 2)), ("p-64x64s2", gf, P(64, 64, 4, 2))]),
             (32, 32, 512, 64, True, [("s1-64x64s2", gf, C(64, 64, 4, 2)), ("p-64x64s2", gf, P(64, 64, 4, 2)),
                                      ("p-64x32s2", gf, P(64, 32, 4, 2))]),
             (16, 32, 1024, 64, False, [("p-64x128s2", gf, P(64, 128, 4, 2))]),
             (16, 32, 1024, 64, True, [("s1-64x64s2", gf, C(64, 64, 4, 2)), ("p-64x64s2", gf, P(64, 64, 4, 2))])]
if os.environ.get("SWEEP"):
    WS = lambda *a, **k: C(*a, warp_specialize=True, **k)
    CASES = [(8, 32, 2048, 64, True, [("s1-64x64s2", gf, C(64, 64, 4, 2)), ("s1-64x64s3", gf, C(64, 64, 4, 3)),
                                      ("pp192-p", gf, WS(192, 128, 12, 2, pingpong=True, persistent=True))]),
             (4, 32, 4096, 64, True, [("s1-64x64s2", gf, C(64, 64, 4, 2)), ("s1-64x64s3", gf, C(64, 64, 4, 3)),
                                      ("pp192-p", gf, WS(192, 128, 12, 2, pingpong=True, persistent=True))]),
             (32, 32, 512, 64, False, [("s1-64x64s2", gf, C(64, 64, 4, 2)), ("s1-64x128s3", gf, C(64, 128, 4, 3)),
                                       ("s1-64x64s3", gf, C(64, 64, 4, 3))]),
             (16, 32, 1024, 64, False, [("s1-64x64s2", gf, C(64, 64, 4, 2)), ("s1-64x128s3", gf, C(64, 128, 4, 3))]),
             (32, 16, 512, 128, False, [("p128x64s3", gf, WS(128, 64, 8, 3, persistent=True)),
                                        ("p128x64s4", gf, WS(128, 64, 8, 4, persistent=True)),
                                        ("ws128s2", gf, WS(128, 128, 8, 2))]),
             (16, 16, 1024, 128, False, [("p128x64s3", gf, WS(128, 64, 8, 3, persistent=True)),
                                         ("ws128s2", gf, WS(128, 128, 8, 2))])]
if os.environ.get("LONG"):
    WS = lambda *a, **k: C(*a, warp_specialize=True, **k)
    CASES = [(2, 16, 8192, 128, False, [("p128-pp", gf, WS(128, 128, 8, 2, pingpong=True, persistent=True)),
                                        ("ws128s3", gf, WS(128, 128, 8, 3))]),
             (1, 16, 16384, 128, False, [("p128-pp", gf, WS(128, 128, 8, 2, pingpong=True, persistent=True)),
                                         ("ws128s3", gf, WS(128, 128, 8, 3))]),
             (1, 16, 16384, 128, True, [("p128-pp", gf, WS(128, 128, 8, 2, pingpong=True, persistent=True))])]
if os.environ.get("ONLY"):
    CASES = [CASES[int(i)] for i in os.environ["ONLY"].split(",")]


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


rows = []
for b, h, s, d, causal, variants in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=B16) for _ in range(3)) for _ in range(4)]
    heur = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
    variants = [("heur", gf, heur)] + variants
    graphs, oks = [], {}
    for label, mod, cfg in variants:
        if mod is not gf:
            cfg = mod.Config(**cfg.as_dict())
        run = mod.prepare(*sets[0], causal, d ** -0.5, cfg)
        if not label.startswith("no"):
            q, k, v = sets[1]
            out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device="cuda")
            run(q, k, v, out, lse)
            # the first and the last head: different CTAs, different laps of the persistent loop
            oks[label] = all(bool(judge(out[bb, hh][None, None].cpu(), q[bb, hh][None, None].cpu(),
                                        k[bb, hh][None, None].cpu(), v[bb, hh][None, None].cpu(), causal=causal,
                                        lse=lse[bb, hh][None, None].cpu()).ok) for bb, hh in ((0, 0), (-1, -1)))
            oks[label] &= not torch.isnan(out).any().item()
        fn = lambda i, run=run: run(*sets[i % 4])
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    for g in graphs:
        replay_us(*g)
    n = len(graphs)
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(n) if r % 2 == 0 else reversed(range(n))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    case = f"B{b} H{h} S{s} D{d} {'C' if causal else 'F'}"
    cells = []
    for (label, _, cfg), t in zip(variants, times):
        ratios = sorted(t0 / t1 for t0, t1 in zip(times[0], t))
        cells.append(dict(variant=label, config=str(cfg), us=med(t), ratio=med(ratios), lo=ratios[0], hi=ratios[-1],
                          ok=oks.get(label)))
    rows.append(dict(case=case, cells=cells))
    print(case + "  " + "  ".join(f"{c['variant']} {c['us']:.1f} ({c['ratio']:.3f} [{c['lo']:.3f},{c['hi']:.3f}])"
                                   + ("" if c["ok"] in (None, True) else " FAIL") for c in cells), flush=True)
    del graphs
    json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "ep.json"), "w"), indent=1)
