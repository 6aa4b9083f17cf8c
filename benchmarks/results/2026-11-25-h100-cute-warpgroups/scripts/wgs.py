"""H100: the CuTe ring with several consumer warpgroups (Config.wgs > 1 with stages > 0):
FA3's shape, one copy of the consumer code for every warpgroup, a producer warpgroup and
setmaxnreg (kernel log v32).

Prediction: Gluon's D=64 kernels stall on instruction fetch 5.8-7.3% (three outlined copies of
the consumer code, v25-v26) where FA4's one copy stalls 0.7%. With one copy, the CuTe
192 x 64 / 128 x 128 rings should reach Gluon at D=128 and pass it by a few % at D=64 causal,
before ping-pong, the lazy rescale and a persistent schedule (which Gluon has and these lack).

1. Correctness of every config (fp64 reference, NaN-poisoned O and LSE; 7 shapes incl. Sq = 1,
   Sq not a multiple of the block, Sq != Sk, Sq > Sk causal, GQA; full and causal; bf16 + fp16).
2. Paired CUDA-graph rounds per cell: auto (Gluon) first, then SDPA-cuDNN and the variants;
   ratio = auto's time / the variant's. Two input sets rotate. Writes wgs.log / wgs.json to $OUT."""
import json, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import ends, graph, median, paired_rounds, replay_us
import flashcore
from flashcore.bench.correctness import judge
from flashcore.kernels import cute_fwd as cf
from torch.nn.attention import SDPBackend, sdpa_kernel

OUT = os.environ.get("OUT", ".")
ROUNDS, ROUND_MS, NSETS = int(os.environ.get("ROUNDS", 11)), float(os.environ.get("ROUND_MS", 30)), 2
W = lambda bn, st, w, **kw: cf.Config(bn, 1, 1, wgs=w, stages=st, **kw)
SET = os.environ.get("SET", "1")
if SET == "1":  # run 1 (65a9b01): one "slot free" barrier for K and V together
    D128 = [W(128, 2, 2), W(128, 3, 2), W(64, 3, 2)]
    D64 = [W(64, 3, 3), W(128, 2, 2), W(128, 3, 2), W(128, 2, 3)]
elif SET == "3":  # run 5: the lazy rescale behind a warp vote (uniform branch); FA4 beside
    L, T, LT = dict(lazy=True), dict(turns=True), dict(lazy=True, turns=True)
    D128 = [W(128, 3, 2), W(128, 3, 2, **L), W(128, 3, 2, **LT)]
    D64 = [W(96, 3, 3, **T), W(96, 3, 3, **LT), W(128, 3, 2, **L)]
elif SET == "5":  # run 7: the best of runs 1-6 against the single-warpgroup rings that cute_fwd.RINGS held
    LT = dict(lazy=True, turns=True)
    D128 = [cf.Config(32, 1, 1, stages=3, loader_warp=False), W(128, 2, 2), W(128, 2, 2, turns=True),
            W(128, 2, 2, lazy=True)]
    D64 = [cf.Config(64, 1, 1, stages=2, loader_warp=False), W(96, 3, 3, **LT), W(96, 2, 3, **LT), W(128, 2, 2, **LT)]
    SET5_CELLS = [(2, 16, 8192, 128, False, D128), (4, 16, 4096, 128, True, D128), (16, 16, 1024, 128, True, D128),
                  (2, 32, 8192, 64, True, D64), (8, 32, 2048, 64, False, D64), (16, 32, 1024, 64, True, D64)]
elif SET == "6":  # next: the pinned knob (exps and P's packing as opaque asm) and persistent CTAs (v32)
    P, LT = dict(pinned=True), dict(lazy=True, turns=True)
    D128 = [W(128, 2, 2), W(128, 2, 2, **P), W(128, 2, 2, lazy=True, **P), W(128, 2, 2, persistent=True, **P),
            W(176, 2, 2, **P)]
    D64 = [W(96, 2, 3, **LT), W(96, 2, 3, **LT, **P), W(128, 2, 3, **LT, **P),  # 192-row rings (wgs=3)
           W(96, 2, 3, persistent=True, **LT, **P)]
    SET5_CELLS = [(2, 16, 8192, 128, False, D128), (4, 16, 4096, 128, True, D128), (2, 32, 8192, 64, True, D64),
                  (8, 32, 2048, 64, False, D64)]
elif SET == "4":  # run 6: persistent CTAs (items round robin, a head's blocks side by side)
    P, PT, LT = dict(persistent=True), dict(persistent=True, turns=True), dict(lazy=True, turns=True)
    D128 = [W(128, 3, 2), W(128, 2, 2), W(128, 2, 2, **P), W(128, 2, 2, **PT)]
    D64 = [W(96, 3, 3, **LT), W(96, 3, 3, persistent=True, **LT), W(96, 3, 3, **PT)]
else:  # run 3: K and V freed separately; the lazy rescale and turns as knobs
    L, T = dict(lazy=True), dict(lazy=True, turns=True)
    D128 = [W(128, 3, 2), W(128, 3, 2, **L), W(128, 3, 2, turns=True), W(128, 3, 2, **T), W(128, 2, 2, **T)]
    D64 = [W(128, 3, 2), W(128, 3, 2, **T), W(96, 3, 3, **L), W(96, 3, 3, **T), W(64, 4, 3, **T)]
CELLS = eval(os.environ["CELLS"]) if "CELLS" in os.environ else SET5_CELLS if SET in ("5", "6") else [
    (2, 16, 8192, 128, False, D128), (2, 16, 8192, 128, True, D128), (4, 16, 4096, 128, False, D128),
    (4, 16, 4096, 128, True, D128), (16, 16, 1024, 128, True, D128),
    (2, 32, 8192, 64, False, D64), (2, 32, 8192, 64, True, D64), (8, 32, 2048, 64, False, D64)]
CHECKS = [(1, 4, 4, 512, 512), (2, 4, 2, 257, 257), (1, 4, 4, 300, 1000), (1, 2, 2, 1000, 600), (2, 2, 2, 1, 700),
          (1, 2, 2, 2048, 2048), (1, 6, 2, 200, 333)]
if SET == "4":  # more items than SMs: a persistent CTA takes several
    CHECKS += [(4, 8, 8, 1024, 1024), (2, 16, 4, 777, 1500)]
if SET == "6":  # more items than SMs: a persistent CTA takes several
    CHECKS += [(4, 8, 8, 1024, 1024), (2, 16, 4, 777, 1500)]
log = open(os.path.join(OUT, "wgs.log"), "w")
try:
    from flash_attn.cute import flash_attn_func as FA4
except ImportError:
    FA4 = None


def say(s):
    print(s, flush=True); log.write(s + "\n"); log.flush()


def tag(c):
    return (f"{64 * c.wgs}x{c.block_n}s{c.stages}" + ("w0" if not c.loader_warp else "")
            + ("pin" if getattr(c, "pinned", False) else "") + ("L" if c.lazy else "") + ("T" if c.turns else "")
            + ("P" if getattr(c, "persistent", False) else "") + ("tree" if getattr(c, "tree", False) else "")
            + ("st" if getattr(c, "straight", False) else "") + ("E" if getattr(c, "early", False) else ""))


fails = total = 0
for d in (64, 128):
    configs = sorted({c for b, h, s, dd, causal, cs in CELLS if dd == d for c in cs}, key=str)
    for cfg in configs:
        for dt in (torch.bfloat16, torch.float16):
            for b, h, hk, sq, sk in CHECKS:
                for causal in (False, True):
                    g = torch.Generator(device="cuda").manual_seed(sq * 3 + sk + causal)
                    q = torch.randn(b, h, sq, d, device="cuda", dtype=dt, generator=g)
                    k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=dt, generator=g) for _ in range(2))
                    out = torch.full_like(q, float("nan"))
                    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
                    try:
                        cf.forward(q, k, v, causal, d ** -0.5, cfg, out, lse)
                        torch.cuda.synchronize()
                        ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
                        ok, msg = ver.ok, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}"
                    except Exception as e:  # noqa: BLE001
                        ok, msg = False, f"{type(e).__name__}: {str(e)[:300]}"
                    fails += not ok
                    total += 1
                    if not ok or os.environ.get("VERBOSE"):
                        say(f"check {tag(cfg)} D{d} {dt} B{b} H{h}/{hk} Sq{sq} Sk{sk} {'causal' if causal else 'full'}: "
                            f"{'ok' if ok else 'FAIL'} {msg}")
say(f"checks: {fails} failed of {total}")

rows = []
for b, h, s, d, causal, configs in CELLS:
    torch.manual_seed(0)
    DT = torch.bfloat16
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DT) for _ in range(3)) for _ in range(NSETS)]

    def cudnn(i):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(*sets[i % NSETS], is_causal=causal)

    fns = [lambda i: flashcore.attention(*sets[i % NSETS], causal=causal), cudnn]
    names = [None, None]
    if FA4 is not None:  # (B, S, H, D) copies, as the bench's provider passes them
        bshd = [tuple(t.transpose(1, 2).contiguous() for t in st) for st in sets]
        fns.append(lambda i: FA4(*bshd[i % NSETS], causal=causal))
        names.append("fa4")
    oks = []
    for c in configs:
        run = cf.prepare(*sets[0], causal, d ** -0.5, c)
        out, lse = run(*sets[1])
        q, k, v = sets[1]
        oks.append(all(judge(o, qq, kk, vv, causal=causal, lse=ll).ok
                       for o, qq, kk, vv, ll in zip(ends(out), ends(q), ends(k), ends(v), ends(lse))))
        fns.append(lambda i, run=run: run(*sets[i % NSETS]))
    graphs = []
    for fn in fns:
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    times = paired_rounds(graphs, ROUNDS)
    case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    row = dict(case=case, auto_us=median(times[0]), cudnn_us=median(times[1]), times=times, variants=[])
    line = (f"{case:24s} auto {median(times[0]):7.1f} ({flops / median(times[0]) / 1e6:.0f} TF) cudnn "
            f"{median(times[1]):7.1f} ({median(times[0]) / median(times[1]):.3f})")
    labels = names[1:] + configs
    for c, t, ok in zip(labels, times[1:], [True] * (len(names) - 1) + oks):
        r = sorted(a / x for a, x in zip(times[0], t))
        row["variants"].append(dict(config=c if isinstance(c, (str, type(None))) else c.as_dict(), us=median(t),
                                    ratio=median(r), lo=r[0], hi=r[-1], ok=ok, tflops=flops / median(t) / 1e6))
        if c is not None:
            name = c if isinstance(c, str) else tag(c)
            line += f" | {name} {median(t):7.1f} {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]{'' if ok else ' FAIL'}"
    rows.append(row)
    say(line)
    del graphs, sets
    torch.cuda.empty_cache()
json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, nsets=NSETS,
               device=torch.cuda.get_device_name(), torch=torch.__version__), open(os.path.join(OUT, "wgs.json"), "w"),
          indent=1)
