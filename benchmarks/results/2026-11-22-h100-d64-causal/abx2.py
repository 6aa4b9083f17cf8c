"""H100, sustained paired timing: per case, (version, config) pairs as CUDA graphs of ~ROUND_MS each,
replayed round robin (order reversed every other round). 'orig' is gf_orig.py (HEAD ca87ccf with absolute
imports), 'new' the working tree (ddf17da). Ratios are against the case's first entry."""
import json, os, sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gf_orig
from flashcore.kernels import gluon_fwd as gf

ROUND_MS = float(os.environ.get("ROUND_MS", "300"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
M = {"orig": gf_orig, "new": gf}
S1, S64 = dict(block_m=64, block_n=128, num_warps=4, num_stages=2), dict(block_m=64, block_n=64, num_warps=4, num_stages=2)
P2 = dict(block_m=192, block_n=128, num_warps=12, num_stages=2, warp_specialize=True, pingpong=True, persistent=True)
NP2 = dict(block_m=192, block_n=128, num_warps=12, num_stages=2, warp_specialize=True, pingpong=True)
P128 = dict(block_m=128, block_n=128, num_warps=8, num_stages=2, warp_specialize=True, persistent=True)
P3 = dict(block_m=192, block_n=128, num_warps=12, num_stages=3, warp_specialize=True, pingpong=True, persistent=True)
CASES = [
    ((2, 32, 8192, 64, True), [("orig", S1), ("new", P2)]),
    ((1, 32, 16384, 64, True), [("orig", S1), ("new", P2)]),
    ((2, 16, 8192, 128, False), [("orig", P128), ("new", P128)]),
    ((16, 16, 1024, 128, True), [("orig", P128), ("new", P128)]),
    ((2, 32, 8192, 64, False), [("orig", NP2), ("new", NP2)]),
    ((4, 32, 4096, 64, False), [("orig", P3), ("new", P3)]),
]


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


rows = []
for (b, h, s, d, causal), entries in CASES:
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    ref = torch.nn.functional.scaled_dot_product_attention(*(t[-1:, -2:].double() for t in (q, k, v)), is_causal=causal).float()
    graphs, errs, labels = [], [], []
    for tag, cfg in entries:
        m = M[tag]
        c = m.Config(**cfg)
        out = m.forward(q, k, v, causal, d ** -0.5, c)[0]
        errs.append((out[-1:, -2:].float() - ref).abs().max().item())
        fn = lambda m=m, c=c: m.forward(q, k, v, causal, d ** -0.5, c)
        one = replay_us(graph(fn, 1), 1)
        calls = max(1, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
        labels.append(f"{tag} {c.block_m}x{c.block_n}s{c.num_stages}{' pp' if c.pingpong else ''}{' P' if c.persistent else ''}")
    replay_us(*graphs[0])
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(len(graphs)) if r % 2 == 0 else reversed(range(len(graphs)))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    for i, lab in enumerate(labels):
        ratios = sorted(t0 / t for t0, t in zip(times[0], times[i]))
        row = dict(case=f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}", entry=lab, us=med(times[i]),
                   vs_first=med(ratios), lo=ratios[0], hi=ratios[-1], err=errs[i], round_ms=ROUND_MS, rounds=ROUNDS)
        rows.append(row)
        print(f"{row['case']:28s} {lab:26s} {row['us']:8.1f} us  vs first {row['vs_first']:.3f} "
              f"[{row['lo']:.3f}, {row['hi']:.3f}]  err {errs[i]:.1e}", flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "abx2.json"), "w"), indent=1)
