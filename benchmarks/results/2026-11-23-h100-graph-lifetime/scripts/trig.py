"""H100: PDL trigger placement. Per case, the API's dispatch prepared three ways: without PDL,
and with PDL (HEAD: the stage-1, split and portable kernels trigger after their KV loop,
the warp-specialised kernel in its prologue). The first run (trig-early-late.log) compared
the trigger in the prologue against after the loop; its correctness column read FAIL
because it judged fp32 copies against the fp32 tolerance (a harness bug, fixed here). Graphs of ~ROUND_MS of
back-to-back calls on 4 rotating input sets, replayed round robin (order reversed every
other round). Ratios: nopdl time / variant time (> 1: the variant is faster)."""
import json, os, sys
import torch
from flashcore import ops
from flashcore.kernels.launch import without_pdl
from flashcore.bench.correctness import judge

ROUND_MS = float(os.environ.get("ROUND_MS", "100"))
ROUNDS = int(os.environ.get("ROUNDS", "7"))
F16, B16 = torch.float16, torch.bfloat16
CASES = [(1, 8, 512, 512, 64, False, F16), (1, 8, 512, 512, 64, True, F16), (2, 8, 512, 512, 64, False, F16),
         (2, 8, 512, 512, 64, True, F16),
         (1, 8, 2048, 2048, 64, False, B16), (1, 8, 2048, 2048, 64, True, B16), (1, 8, 2048, 2048, 128, False, B16),
         (1, 8, 2048, 2048, 128, True, B16), (1, 16, 1024, 1024, 128, False, B16), (1, 8, 256, 4096, 64, False, B16),
         (32, 16, 512, 512, 128, True, B16), (32, 16, 512, 512, 128, False, B16), (32, 32, 512, 512, 64, False, B16),
         (16, 16, 1024, 1024, 128, True, B16), (2, 16, 8192, 8192, 128, False, B16)]
CASES = CASES[:int(os.environ.get("NCASES", len(CASES)))]
VARIANTS = os.environ.get("VARIANTS", "nopdl,pdl").split(",")
if os.environ.get("FIRST"):  # repeat the case that hit an illegal instruction in call 3, first
    CASES = [CASES[2]] * int(os.environ["FIRST"]) + CASES


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
for b, h, sq, sk, d, causal, dt in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=dt) for s in (sq, sk, sk)) for _ in range(4)]
    graphs, oks = [], []
    for var in VARIANTS:
        ctx = without_pdl() if var == "nopdl" else torch.no_grad()
        with ctx:
            run = ops.prepare_forward(*sets[0], causal, d ** -0.5, "auto", False)
        out, _ = run(*sets[1])
        out.fill_(float("nan"))
        out, _ = run(*sets[1])
        if os.environ.get("NOJUDGE"):
            oks.append(True)
        else:
            oks.append(bool(judge(out[:1, :2], *(t[:1, :2] for t in sets[1]), causal=causal).ok))
        fn = lambda i, run=run: run(*sets[i % 4])
        one = replay_us(graph(fn, 8), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    for g in graphs:
        replay_us(*g)
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(len(graphs)) if r % 2 == 0 else reversed(range(len(graphs)))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    case = f"B{b} H{h} Sq{sq} Sk{sk} D{d} {'C' if causal else 'F'} {str(dt)[6:]}"
    line = f"{case:34s}"
    for i, var in enumerate(VARIANTS):
        ratios = sorted(t0 / t for t0, t in zip(times[0], times[i]))
        rows.append(dict(case=case, variant=var, us=med(times[i]), vs_nopdl=med(ratios), lo=ratios[0],
                         hi=ratios[-1], ok=oks[i], round_ms=ROUND_MS, rounds=ROUNDS))
        line += f" {var} {med(times[i]):8.2f} ({med(ratios):.3f} [{ratios[0]:.3f},{ratios[-1]:.3f}]){'' if oks[i] else ' FAIL'}"
    print(line, flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "trig.json"), "w"), indent=1)
