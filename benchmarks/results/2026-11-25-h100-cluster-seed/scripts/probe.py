"""H100: the CuTe DSL cluster-split forward (kernels/cute_fwd.py) against what auto runs.

1. Correctness: fresh independent q, k, v, output poisoned with NaN, judged by the bench's rule
   (fp64 reference, at most 2x PyTorch's own error) on shapes that hit every branch.
2. Timing at the seed (B=1-2, H=8, S=512, D=64, fp16): CUDA graphs of back-to-back calls over
   NSETS input sets (48 by default: past 2x L2, as the bench rotates), paired rounds, order
   reversed every other round. ratio = auto's time / the variant's (> 1: the variant is faster).
3. Eager: median microseconds of one call (host + launch), both paths.
"""
import json, os, sys, time
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us
import flashcore
from flashcore.kernels import cute_fwd as cf
from flashcore.bench.correctness import judge

OUT = os.environ.get("OUT", ".")
NSETS, ROUNDS, ROUND_MS = int(os.environ.get("NSETS", 48)), int(os.environ.get("ROUNDS", 21)), float(os.environ.get("ROUND_MS", 40))
DT = {"fp16": torch.float16, "bf16": torch.bfloat16}
log = open(os.path.join(OUT, "probe.log"), "w")


def say(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True); log.write(s + "\n"); log.flush()


def inputs(b, h, hk, sq, sk, d, dt, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    mk = lambda hh, s: torch.randn(b, hh, s, d, device="cuda", dtype=DT[dt], generator=g)
    return mk(h, sq), mk(hk, sk), mk(hk, sk)


t0 = time.time()
CHECKS = [] if os.environ.get("NOCHECK") else [  # (B, Hq, Hkv, Sq, Sk, D, causal, dtype, config or None)
    (1, 8, 8, 512, 512, 64, False, "fp16", None), (1, 8, 8, 512, 512, 64, True, "fp16", None),
    (2, 8, 8, 512, 512, 64, False, "fp16", None), (2, 8, 8, 512, 512, 64, True, "fp16", None),
    (1, 8, 8, 512, 512, 64, False, "bf16", None), (2, 8, 8, 512, 512, 64, True, "bf16", None),
    (1, 8, 8, 512, 512, 64, False, "fp16", cf.Config(128, 2, 2)), (1, 8, 8, 512, 512, 64, True, "fp16", cf.Config(128, 1, 4)),
    (1, 4, 4, 1, 512, 64, False, "fp16", None), (1, 8, 8, 7, 7, 64, True, "fp16", None),
    (1, 8, 8, 257, 257, 64, False, "fp16", None), (1, 8, 8, 257, 257, 64, True, "bf16", None),
    (2, 8, 2, 300, 384, 128, True, "bf16", None), (1, 8, 8, 1000, 1000, 64, True, "fp16", None),
    (2, 6, 3, 512, 384, 128, False, "fp16", None), (1, 8, 8, 700, 300, 64, True, "fp16", None),
]
fails = 0
for b, h, hk, sq, sk, d, causal, dt, cfg in CHECKS:
    q, k, v = inputs(b, h, hk, sq, sk, d, dt, seed=sq + sk)
    out = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    try:
        cf.forward(q, k, v, causal, d ** -0.5, cfg, out, lse)
        torch.cuda.synchronize()
        ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
        ok, msg = ver.ok, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} rel {ver.rel_err:.2e}/{ver.budget_rel:.2e} {ver.reason}"
    except Exception as e:  # noqa: BLE001
        ok, msg = False, f"{type(e).__name__}: {str(e)[:400]}"
    fails += not ok
    say(f"check B{b} H{h}/{hk} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'} {dt} {cfg or cf.config_for(sk, d)}: {'ok' if ok else 'FAIL'} {msg}")
say(f"checks done in {time.time() - t0:.0f}s, {fails} failed")

TIMED = [tuple(x) for x in json.loads(os.environ.get("TIMED", "[[1, false], [1, true], [2, false], [2, true]]"))]
VARIANTS = [(cf.Config(128, 2, 2), False), (cf.Config(128, 2, 2), True), (cf.Config(128, 1, 4), True)]
rows = []
for b, causal in TIMED:
    sets = [inputs(b, 8, 8, 512, 512, 64, "fp16", seed=i) for i in range(NSETS)]
    outs = [torch.empty_like(s[0]) for s in sets]
    fns = [lambda i: flashcore.attention(*sets[i % NSETS], causal=causal)]
    for cfg, alloc in VARIANTS:
        if alloc:  # a fresh output per call, as flashcore.attention allocates (the graph pool recycles it)
            fns.append(lambda i, cfg=cfg: cf.forward(*sets[i % NSETS], causal, 0.125, cfg))
        else:  # one of NSETS outputs, rotated with the inputs
            fns.append(lambda i, cfg=cfg: cf.forward(*sets[i % NSETS], causal, 0.125, cfg, outs[i % NSETS]))
    graphs = []
    for fn in fns:
        one = replay_us(graph(fn, NSETS), NSETS)
        calls = max(NSETS, int(ROUND_MS * 1000 / one) // NSETS * NSETS)
        graphs.append((graph(fn, calls), calls))
    times = paired_rounds(graphs, ROUNDS)
    eager = []
    for fn in fns:
        ts = []
        for i in range(200):
            torch.cuda.synchronize(); a = time.perf_counter(); fn(i); torch.cuda.synchronize(); ts.append((time.perf_counter() - a) * 1e6)
        eager.append(median(ts))
    base = times[0]
    line = f"B{b} {'causal' if causal else 'full'}: auto {median(base):.2f}us (eager {eager[0]:.1f})"
    row = dict(case=f"B{b} H8 S512 D64 {'causal' if causal else 'full'} fp16", auto_us=median(base), auto_eager_us=eager[0], variants=[])
    for (cfg, alloc), t, e in zip(VARIANTS, times[1:], eager[1:]):
        r = sorted(a / c for a, c in zip(base, t))
        row["variants"].append(dict(config=str(cfg), fresh_output=alloc, us=median(t), ratio=median(r), lo=r[0], hi=r[-1], eager_us=e, times=t))
        line += f" | s{cfg.split}t{cfg.tiles}{' alloc' if alloc else ''} {median(t):.2f}us {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}] eager {e:.1f}"
    row["auto_times"] = base
    rows.append(row)
    say(line)
json.dump(dict(rows=rows, nsets=NSETS, rounds=ROUNDS, round_ms=ROUND_MS, torch=torch.__version__,
               device=torch.cuda.get_device_name()), open(os.path.join(OUT, "probe.json"), "w"), indent=1)
