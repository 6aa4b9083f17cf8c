"""H100: PDL on/off per cell, paired rounds in graph mode. Per case the API's dispatch
(or a forced backend) prepared twice, without and with PDL; graphs of ~ROUND_MS of
back-to-back calls on 4 rotating input sets, replayed round robin (order reversed every
other round). Ratio: nopdl time / pdl time per round (> 1: PDL faster); median [min, max]."""
import json, os
import torch
from flashcore import dispatch, ops
from flashcore.kernels.launch import without_pdl
from flashcore.bench.correctness import judge

ROUND_MS, ROUNDS = float(os.environ.get("ROUND_MS", "60")), int(os.environ.get("ROUNDS", "9"))
F16, B16 = torch.float16, torch.bfloat16
CASES = [  # b, h, sq, sk, d, causal, dtype, backend
    (1, 8, 512, 512, 64, False, F16, "auto"), (1, 8, 512, 512, 64, True, F16, "auto"),
    (2, 8, 512, 512, 64, False, F16, "auto"), (2, 8, 512, 512, 64, True, F16, "auto"),
    (1, 8, 512, 512, 64, False, F16, "triton"), (2, 8, 512, 512, 64, True, F16, "triton"),
    (1, 8, 2048, 2048, 64, False, B16, "auto"), (1, 8, 2048, 2048, 64, True, B16, "auto"),
    (1, 8, 2048, 2048, 128, True, B16, "auto"), (1, 4, 4096, 4096, 64, True, B16, "auto"),
    (1, 8, 256, 4096, 64, False, B16, "auto"), (1, 8, 1, 8192, 128, False, B16, "auto"),
    (32, 16, 512, 512, 128, False, B16, "auto"), (32, 16, 512, 512, 128, True, B16, "auto"),
    (32, 32, 512, 512, 64, False, B16, "auto"), (16, 16, 1024, 1024, 128, False, B16, "auto"),
    (4, 16, 4096, 4096, 128, False, B16, "auto"), (2, 16, 8192, 8192, 128, True, B16, "auto"),
    (8, 16, 2048, 2048, 128, False, B16, "triton"), (4, 16, 2048, 2048, 96, True, B16, "auto"),
    (1, 16, 1024, 1024, 96, False, B16, "auto"),
]
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
for b, h, sq, sk, d, causal, dt, backend in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=dt) for s in (sq, sk, sk)) for _ in range(4)]
    graphs, oks, fns = [], [], []
    family = dispatch.kernel_for(backend, *sets[0])
    for var in ("nopdl", "pdl"):
        ctx = without_pdl() if var == "nopdl" else torch.no_grad()
        with ctx:
            run = ops.prepare_forward(*sets[0], causal, d ** -0.5, backend, False)
        out, _ = run(*sets[1])
        out.fill_(float("nan"))
        out, _ = run(*sets[1])
        oks.append(bool(judge(out[:1, :2], *(t[:1, :2] for t in sets[1]), causal=causal).ok))
        fn = lambda i, run=run: run(*sets[i % 4])
        fns.append(fn)
        one = replay_us(graph(fn, 8), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    for g in graphs:
        replay_us(*g)
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(2) if r % 2 == 0 else reversed(range(2))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    ratios = sorted(t0 / t1 for t0, t1 in zip(*times))
    case = f"B{b} H{h} Sq{sq} Sk{sk} D{d} {'C' if causal else 'F'} {str(dt)[6:]} {family}"
    rows.append(dict(case=case, nopdl_us=med(times[0]), pdl_us=med(times[1]), ratio=med(ratios), lo=ratios[0],
                     hi=ratios[-1], ok=oks, round_ms=ROUND_MS, rounds=ROUNDS))
    print(f"{case:44s} nopdl {med(times[0]):9.2f} pdl {med(times[1]):9.2f}  {med(ratios):.3f} [{ratios[0]:.3f},{ratios[-1]:.3f}]"
          f"{'' if all(oks) else ' FAIL'}", flush=True)
    del graphs, fns
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "pair.json"), "w"), indent=1)
