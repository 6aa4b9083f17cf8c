"""H100: where the CuTe DSL cluster kernel (backend "cute") beats what auto ran before it
(Gluon, or the portable kernel for short rows), to set and check auto's rule.

1. Correctness: fresh independent q, k, v, NaN-poisoned outputs, the bench's rule (fp64
   reference, at most 2x PyTorch's own error) for O and the LSE, through cute_fwd.forward and
   through flashcore.attention (plans, LSE scratch, a (B, S, H, D) view).
2. Timing: small-grid shapes around the seed, CUDA graphs of back-to-back calls over NSETS
   input sets (past L2), paired rounds, order reversed every other round. ratio = the old
   path's time / cute's (> 1: cute is faster). Every path goes through flashcore.attention.
3. Causal diagnostics at the seed (B=1): the causal binary with a key offset that unmasks every
   row (full work, causal code) and the full binary, against Gluon's causal.
4. Eager: median microseconds of one flashcore.attention call, old path and cute.
"""
import json, os, sys, time
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us
import flashcore
from flashcore import dispatch
from flashcore.kernels import cute_fwd as cf
from flashcore.kernels.launch import pdl_on
from flashcore.bench.correctness import judge

OUT = os.environ.get("OUT", ".")
NSETS, ROUNDS, ROUND_MS = int(os.environ.get("NSETS", 48)), int(os.environ.get("ROUNDS", 15)), float(os.environ.get("ROUND_MS", 30))
DT = {"fp16": torch.float16, "bf16": torch.bfloat16}
log = open(os.path.join(OUT, "probe.log"), "w")


def say(*a):
    s = " ".join(str(x) for x in a)
    print(s, flush=True); log.write(s + "\n"); log.flush()


def inputs(b, h, hk, sq, sk, d, dt, seed=0, bshd=False):
    g = torch.Generator(device="cuda").manual_seed(seed)
    if bshd:
        mk = lambda hh, s: torch.randn(b, s, hh, d, device="cuda", dtype=DT[dt], generator=g).transpose(1, 2)
    else:
        mk = lambda hh, s: torch.randn(b, hh, s, d, device="cuda", dtype=DT[dt], generator=g)
    return mk(h, sq), mk(hk, sk), mk(hk, sk)


def old_path(q, k, v, causal):
    """What auto ran before the cluster rule."""
    rule = dispatch._cluster_split_wins
    dispatch._cluster_split_wins = lambda *a: False
    try:
        return dispatch.kernel_for("auto", q, k, v, causal)
    finally:
        dispatch._cluster_split_wins = rule


t0 = time.time()
CHECKS = [] if os.environ.get("NOCHECK") else [  # (B, Hq, Hkv, Sq, Sk, D, causal, dtype, config, bshd)
    (1, 8, 8, 512, 512, 64, False, "fp16", None, False), (1, 8, 8, 512, 512, 64, True, "fp16", None, False),
    (2, 8, 8, 512, 512, 64, False, "fp16", None, False), (2, 8, 8, 512, 512, 64, True, "bf16", None, False),
    (1, 8, 8, 512, 512, 64, False, "bf16", None, True), (1, 8, 8, 512, 512, 64, True, "fp16", cf.Config(128, 1, 4), False),
    (1, 4, 4, 1, 512, 64, False, "fp16", None, False), (1, 8, 8, 7, 7, 64, True, "fp16", None, False),
    (1, 8, 8, 257, 257, 64, True, "bf16", None, False), (2, 8, 2, 300, 384, 128, True, "bf16", None, False),
    (1, 8, 8, 1000, 1000, 64, True, "fp16", None, False), (2, 6, 3, 512, 384, 128, False, "fp16", None, True),
    (1, 8, 8, 700, 300, 64, True, "fp16", None, False), (1, 16, 16, 256, 400, 64, False, "fp16", None, False),
]
fails = 0
for b, h, hk, sq, sk, d, causal, dt, cfg, bshd in CHECKS:
    q, k, v = inputs(b, h, hk, sq, sk, d, dt, seed=sq + sk, bshd=bshd)
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
    say(f"check forward B{b} H{h}/{hk} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'} {dt}{' bshd' if bshd else ''} {cfg or cf.config_for(sk, d)}: {'ok' if ok else 'FAIL'} {msg}")
for dt, bshd in (("fp16", False), ("bf16", True)):  # through auto: plan, scratch LSE, fresh inputs
    for seed in (1, 2):
        q, k, v = inputs(1, 8, 8, 512, 512, 64, dt, seed=seed, bshd=bshd)
        picked = dispatch.kernel_for("auto", q, k, v, False)
        o1 = flashcore.attention(q, k, v)
        o2, lse = flashcore.attention(q, k, v, return_lse=True)
        v1, v2 = judge(o1, q, k, v, causal=False), judge(o2, q, k, v, causal=False, lse=lse)
        ok = v1.ok and v2.ok and picked == "cute"
        fails += not ok
        say(f"check auto seed {dt}{' bshd' if bshd else ''} set {seed}: picked {picked}: {'ok' if ok else 'FAIL'} {v1.reason} {v2.reason}")
say(f"checks done in {time.time() - t0:.0f}s, {fails} failed")

SHAPES = [  # (B, H, Sq, Sk, D, causal, dtype)
    (1, 8, 512, 512, 64, False, "fp16"), (1, 8, 512, 512, 64, True, "fp16"), (2, 8, 512, 512, 64, False, "fp16"),
    (1, 8, 512, 512, 64, False, "bf16"), (1, 16, 256, 400, 64, False, "fp16"), (1, 8, 384, 384, 64, False, "fp16"),
    (1, 8, 256, 256, 64, False, "fp16"), (1, 4, 512, 512, 64, False, "fp16"), (1, 8, 512, 512, 128, False, "bf16"),
    (1, 8, 64, 512, 64, False, "fp16"), (1, 8, 1, 512, 64, False, "fp16"), (1, 16, 512, 512, 64, False, "fp16"),
]
if os.environ.get("SHAPES"):
    SHAPES = [tuple(x) for x in json.loads(os.environ["SHAPES"])]
rows = []


def time_fns(fns):
    graphs = []
    for fn in fns:
        one = replay_us(graph(fn, NSETS), NSETS)
        calls = max(NSETS, int(ROUND_MS * 1000 / one) // NSETS * NSETS)
        graphs.append((graph(fn, calls), calls))
    return paired_rounds(graphs, ROUNDS)


def eager_us(fn, n=300):
    ts = []
    for i in range(n):
        torch.cuda.synchronize(); a = time.perf_counter(); fn(i); torch.cuda.synchronize(); ts.append((time.perf_counter() - a) * 1e6)
    return median(ts)


for b, h, sq, sk, d, causal, dt in SHAPES:
    sets = [inputs(b, h, h, sq, sk, d, dt, seed=i) for i in range(NSETS)]
    old = old_path(*sets[0], causal)
    auto = dispatch.kernel_for("auto", *sets[0], causal)
    why = cf.supports(*sets[0], 90)
    name = f"B{b} H{h} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'} {dt}"
    if why:
        say(f"{name}: cute cannot run ({why})"); continue
    fns = [lambda i, be=be: flashcore.attention(*sets[i % NSETS], causal=causal, backend=be) for be in (old, "cute")]
    if (b, h, sq, sk, d, causal) == (1, 8, 512, 512, 64, True):  # diagnostics: causal code without masking; full code
        cfg = cf.config_for(sk, d)
        fc, ff = (cf.compiled(dt.replace("fp16", "float16").replace("bf16", "bfloat16"), d, cfg, c, pdl_on()) for c in (True, False))
        lse = torch.empty(b, h, sq, device="cuda")
        def direct(i, fn, offset):
            q, k, v = sets[i % NSETS]
            out = torch.empty_like(q)
            fn(q, k, v, out, lse, 0.125 * cf.LOG2E, offset)
        fns += [lambda i: direct(i, fc, sk), lambda i: direct(i, ff, 0)]
    times = time_fns(fns)
    eager = [eager_us(fn) for fn in fns[:2]]
    base = times[0]
    row = dict(case=name, old=old, auto=auto, old_us=median(base), old_eager_us=eager[0], cute_eager_us=eager[1], variants=[])
    line = f"{name}: auto->{auto} | {old} {median(base):.2f}us (eager {eager[0]:.1f})"
    for label, t in zip(["cute", "causal-binary-unmasked", "full-binary"], times[1:]):
        r = sorted(a / c for a, c in zip(base, t))
        row["variants"].append(dict(label=label, us=median(t), ratio=median(r), lo=r[0], hi=r[-1], times=t))
        line += f" | {label} {median(t):.2f}us {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]"
    line += f" (cute eager {eager[1]:.1f})"
    row["old_times"] = base
    rows.append(row)
    say(line)
json.dump(dict(rows=rows, nsets=NSETS, rounds=ROUNDS, round_ms=ROUND_MS, torch=torch.__version__, pdl=pdl_on(),
               device=torch.cuda.get_device_name()), open(os.path.join(OUT, "probe.json"), "w"), indent=1)
say(f"done in {time.time() - t0:.0f}s")
