"""H100, sustained paired timing of kernel variants (modules gf_*.py beside this file): per case, every
variant's graph of ~ROUND_MS, replayed round robin (order reversed every other round). Ratios are against
the case's first entry (orig). Also checks each variant against an fp64 reference on a slice."""
import importlib, json, os, sys
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

ROUND_MS = float(os.environ.get("ROUND_MS", "300"))
ROUNDS = int(os.environ.get("ROUNDS", "5"))
VARIANTS = os.environ.get("VARIANTS", "orig,pin,pinearly").split(",")
PREFIX = os.environ.get("PREFIX", "gf_")
MODS = {v: importlib.import_module(f"{PREFIX}{v}") for v in VARIANTS}
S1 = dict(block_m=64, block_n=128, num_warps=4, num_stages=2)
S64 = dict(block_m=64, block_n=64, num_warps=4, num_stages=2)
PP3 = dict(block_m=192, block_n=128, num_warps=12, num_stages=2, warp_specialize=True, pingpong=True, persistent=True)
NP3 = dict(block_m=192, block_n=128, num_warps=12, num_stages=2, warp_specialize=True, pingpong=True)
P128 = dict(block_m=128, block_n=128, num_warps=8, num_stages=2, warp_specialize=True, persistent=True)
CASES = [
    ((2, 16, 8192, 128, False), P128),
    ((2, 16, 8192, 128, True), P128),
    ((16, 16, 1024, 128, True), P128),
    ((4, 16, 4096, 128, False), P128),
    ((2, 32, 8192, 64, False), NP3),
    ((2, 32, 8192, 64, True), PP3),
    ((8, 32, 2048, 64, False), S1),
    ((32, 16, 512, 128, True), S64),
    ((32, 16, 512, 128, False), P128),
]
PP128 = dict(P128, pingpong=True)
if os.environ.get("SET") == "pp":
    E = [("orig", P128), ("orig", PP128), ("pin", PP128), ("pinearly", PP128)]
    CASES = [((2, 16, 8192, 128, False), E), ((2, 16, 8192, 128, True), E), ((4, 16, 4096, 128, False), E),
             ((8, 16, 2048, 128, True), E)]
    VARIANTS = ["orig", "pin", "pinearly"]
    MODS = {v: importlib.import_module(f"gf_{v}") for v in VARIANTS}
PP3S3 = dict(PP3, num_stages=3, persistent=True)
if os.environ.get("SET") == "rsum":
    CASES = [((2, 16, 8192, 128, False), P128), ((1, 16, 16384, 128, False), P128), ((4, 16, 4096, 128, False), P128),
             ((2, 16, 8192, 128, True), P128), ((16, 16, 1024, 128, True), P128), ((8, 16, 2048, 128, True), P128),
             ((2, 32, 8192, 64, True), PP3), ((1, 32, 16384, 64, True), PP3), ((2, 32, 8192, 64, False), NP3),
             ((8, 32, 2048, 64, False), PP3S3), ((16, 32, 1024, 64, False), S1), ((32, 16, 512, 128, True), S64)]
if os.environ.get("SET") == "d128":
    CASES = [((1, 16, 16384, 128, False), P128), ((2, 16, 8192, 128, False), P128), ((4, 16, 4096, 128, False), P128),
             ((8, 16, 2048, 128, False), P128), ((16, 16, 1024, 128, False), P128), ((32, 16, 512, 128, False), P128),
             ((1, 16, 16384, 128, True), P128), ((2, 16, 8192, 128, True), P128), ((8, 16, 2048, 128, True), P128),
             ((16, 16, 1024, 128, True), P128)]
S64D64 = dict(block_m=64, block_n=64, num_warps=4, num_stages=2)
if os.environ.get("SET") == "mask":
    CASES = [((32, 16, 512, 128, True), S64), ((16, 16, 1024, 128, True), P128), ((8, 16, 2048, 128, True), P128),
             ((4, 16, 4096, 128, True), P128), ((2, 16, 8192, 128, True), P128),
             ((32, 32, 512, 64, True), S64D64), ((16, 32, 1024, 64, True), S64D64), ((8, 32, 2048, 64, True), S1),
             ((4, 32, 4096, 64, True), S1), ((2, 32, 8192, 64, True), PP3), ((1, 32, 16384, 64, True), PP3)]
T64 = dict(block_m=64, block_n=64, num_warps=4, num_stages=3)
T128 = dict(block_m=128, block_n=64, num_warps=8, num_stages=3)
if os.environ.get("SET") == "tmask":
    CASES = [((1, 8, 512, 64, True), T64), ((2, 8, 512, 64, True), T64), ((8, 32, 2048, 64, True), T128),
             ((8, 16, 2048, 128, True), T128), ((32, 16, 512, 128, True), T128), ((2, 8, 512, 64, False), T64)]
if os.environ.get("SET") == "noop":
    CASES = [((2, 32, 8192, 64, True), PP3), ((1, 32, 16384, 64, True), PP3), ((8, 32, 2048, 64, False), PP3S3),
             ((4, 32, 4096, 64, True), PP3)]
sel = os.environ.get("CASES")
if sel:
    CASES = [CASES[int(i)] for i in sel.split(",")]


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
for (b, h, s, d, causal), spec in CASES:
    entries = spec if isinstance(spec, list) else [(v, spec) for v in VARIANTS]
    torch.manual_seed(0)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    sl = lambda t: t[-1:, -2:]
    ref = torch.nn.functional.scaled_dot_product_attention(*(sl(t).double() for t in (q, k, v)), is_causal=causal)
    sd = torch.nn.functional.scaled_dot_product_attention(*(sl(t) for t in (q, k, v)), is_causal=causal)
    tol = 2 * (sd.double() - ref).abs().max().item() + 1e-6
    graphs, errs = [], []
    for tag, cfg in entries:
        m = MODS[tag]
        c = m.Config(**cfg)
        out = torch.full_like(q, float("nan"))
        m.forward(q, k, v, causal, d ** -0.5, c, out=out)
        err = (sl(out).double() - ref).abs().max().item()
        errs.append(err if out.isfinite().all() else float("nan"))
        fn = lambda m=m, c=c: m.forward(q, k, v, causal, d ** -0.5, c)
        one = replay_us(graph(fn, 1), 1)
        calls = max(1, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    replay_us(*graphs[0])
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(len(graphs)) if r % 2 == 0 else reversed(range(len(graphs)))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    for i, (tag, cfg) in enumerate(entries):
        tag = tag + (" pp" if cfg.get("pingpong") else "")
        ratios = sorted(t0 / t for t0, t in zip(times[0], times[i]))
        ok = errs[i] == errs[i] and errs[i] <= tol
        row = dict(case=case, variant=tag, config=cfg, us=med(times[i]), tflops=flops / med(times[i]) / 1e6,
                   vs_orig=med(ratios), lo=ratios[0], hi=ratios[-1], err=errs[i], tol=tol, ok=ok,
                   round_ms=ROUND_MS, rounds=ROUNDS)
        rows.append(row)
        print(f"{case:26s} {tag:9s} {row['us']:8.1f} us {row['tflops']:6.1f} TF  vs orig {row['vs_orig']:.3f} "
              f"[{row['lo']:.3f}, {row['hi']:.3f}]  err {errs[i]:.1e} tol {tol:.1e} {'ok' if ok else 'FAIL'}",
              flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "abo.json"), "w"), indent=1)
