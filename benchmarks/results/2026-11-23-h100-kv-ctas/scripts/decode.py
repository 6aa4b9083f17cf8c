"""H100: calls whose grid is under a wave and whose key chains are long (decode, chunked
prefill): the API's dispatch (auto) against Gluon stage 1 with the keys split across
kv_ctas CTAs. Each variant checked against the fp32 reference on poisoned outputs, then
timed in paired graph rounds (graphs of ~ROUND_MS of calls on 4 rotating input sets,
round robin, order reversed every other round). Ratio: auto's time / variant's per round."""
import json, os
import torch
from flashcore import dispatch, ops
from flashcore.kernels import gluon_fwd as gf
from flashcore.kernels import launch
from flashcore.bench.correctness import judge, poisoned_like

ROUND_MS, ROUNDS = float(os.environ.get("ROUND_MS", "40")), int(os.environ.get("ROUNDS", "9"))
B16 = torch.bfloat16
C = gf.Config
CASES = [  # b, h, sq, sk, d, causal
    (1, 8, 1, 8192, 128, False), (4, 8, 1, 8192, 128, False), (1, 8, 64, 8192, 128, False),
    (1, 8, 128, 16384, 128, False), (1, 8, 256, 4096, 64, False), (1, 8, 256, 4096, 128, False),
    (1, 8, 256, 4096, 128, True), (1, 8, 512, 8192, 128, False), (1, 8, 512, 8192, 64, True),
    (2, 8, 1024, 4096, 64, False),
]
if os.environ.get("WIDE"):  # 16 CTAs per block where 8 left the longest rows ahead of the peers
    CASES = [(1, 8, 128, 16384, 128, False), (1, 8, 128, 16384, 128, True), (1, 8, 64, 16384, 128, False)]
if os.environ.get("ONLY"):
    CASES = [CASES[int(i)] for i in os.environ["ONLY"].split(",")]


def graph(fn, calls, fill=False):
    """fill: capture as before the arena (a captured zero fill per call)."""
    if fill:
        saved = dict(launch._CAPTURE_ARENAS)
        launch._CAPTURE_ARENAS.clear()
        try:
            return graph(fn, calls)
        finally:
            launch._CAPTURE_ARENAS.update(saved)
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


def text(c):
    return c if isinstance(c, str) else f"{c.block_m}x{c.block_n}s{c.num_stages}" + \
        ("ws" if c.warp_specialize else "") + (f"-split{c.split_kv}" if c.split_kv > 1 else "") + \
        (f"-ctas{c.kv_ctas}" if c.kv_ctas > 1 else "")


rows = []
for b, h, sq, sk, d, causal in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=B16) for s in (sq, sk, sk)) for _ in range(4)]
    tile = (64, 128, 4, 2) if d == 64 else (64, 64, 4, 3)
    variants = ["auto", "auto-fill", gf.heuristic_config(90, d, 2, causal, sq, sk, b * h)] + [C(*tile, kv_ctas=k) for k in ((4, 8, 16) if os.environ.get("WIDE") else (2, 4, 8))]
    graphs, oks = [], []
    for var in variants:
        if var.startswith("auto") if isinstance(var, str) else False:
            run = ops.prepare_forward(*sets[0], causal, d ** -0.5, "auto", True)
            label = var + ":" + dispatch.kernel_for("auto", *sets[0])
        else:
            run = gf.prepare(*sets[0], causal, d ** -0.5, var)
            label = text(var)
        for s in (1, 2):
            out, lse = run(*sets[s])
            out2 = out.clone()
            oks.append(bool(judge(out2.cpu(), *(t.cpu() for t in sets[s]), causal=causal, lse=lse.cpu()).ok))
        fn = lambda i, run=run: run(*sets[i % 4])
        fill = var == "auto-fill"
        one = replay_us(graph(fn, 8, fill), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        graphs.append((label, graph(fn, calls, fill), calls))
    for _, g, c in graphs:
        replay_us(g, c)
    times = [[] for _ in graphs]
    n = len(graphs)
    for r in range(ROUNDS):
        for i in (range(n) if r % 2 == 0 else reversed(range(n))):
            times[i].append(replay_us(graphs[i][1], graphs[i][2]))
    med = lambda x: sorted(x)[len(x) // 2]
    case = f"B{b} H{h} Sq{sq} Sk{sk} D{d} {'C' if causal else 'F'}"
    cells = []
    for (label, _, _), t in zip(graphs, times):
        ratios = sorted(t0 / t1 for t0, t1 in zip(times[0], t))
        cells.append(dict(variant=label, us=med(t), lo_us=min(t), hi_us=max(t), ratio=med(ratios),
                          ratio_lo=ratios[0], ratio_hi=ratios[-1]))
    rows.append(dict(case=case, cells=cells, ok=all(oks), round_ms=ROUND_MS, rounds=ROUNDS))
    print(f"{case:30s} " + "  ".join(f"{c['variant']} {c['us']:7.2f} ({c['ratio']:.2f})" for c in cells)
          + ("" if all(oks) else "  FAIL " + str(oks)), flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "decode.json"), "w"), indent=1)
