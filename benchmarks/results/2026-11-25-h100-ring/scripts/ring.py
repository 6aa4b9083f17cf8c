"""Runs at the sha in ../meta.json (Config.share was removed afterwards: ../patches/share.patch
puts it back).

H100: the CuTe DSL kernel with a ring of K/V slots (Config.stages), alone or with each
K/V tile shared by 2-4 query blocks of a cluster through TMA multicast (Config.share), on the
standard preset's short causal cells, where flashcore trails cuDNN (D=128 S=512 causal 0.92,
S=1k causal 0.96; kernel log v26).

Prediction (kernel log v31): at D=128 S=512 causal our 64-row blocks move 853 MB through L2
against cuDNN's 622 MB, and ours does not speed up with the SM clock. Sharing each K/V tile
between two 64-row blocks halves the K/V part of that traffic (about 590 -> 300 MB) without
the 128-row blocks' extra diagonal work, so the cell should move from ~122 us toward
cuDNN's ~108.

1. Correctness of every variant (fp64 reference, NaN-poisoned O and LSE) on odd shapes.
2. Paired CUDA-graph rounds per cell: auto (Gluon, as shipped) first, then SDPA-cuDNN and
   the ring variants; ratio = auto's time / the variant's. Two input sets (each past L2)
   rotate. Writes ring.log / ring.json to $OUT."""
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
ROUNDS, ROUND_MS, NSETS = int(os.environ.get("ROUNDS", 15)), float(os.environ.get("ROUND_MS", 30)), 2
C = cf.Config
R = lambda bn, st, sh=1: C(bn, 1, 1, stages=st, share=sh)  # runs 1-4 (Config.share existed then)
SET = os.environ.get("SET", "1")
if SET == "1":
    D128 = [R(64, 2), R(64, 2, 2), R(64, 2, 4), R(32, 5), R(32, 5, 2), R(32, 5, 4), R(64, 3, 2)]
    D64 = [R(64, 2), R(64, 2, 2), R(64, 2, 4), R(32, 4), R(32, 4, 2), R(128, 2, 2)]
elif SET == "2":  # run 4: after the heads-last grid; more CTAs per SM
    D128 = [R(32, 3), R(32, 3, 2), R(32, 3, 4), R(32, 5, 2), R(64, 2), R(64, 2, 2)]
    D64 = [R(32, 4), R(32, 4, 2), R(64, 2), R(64, 2, 2), R(64, 3, 2), R(128, 2, 2)]
else:  # run 8: warp 0 refills the ring (loader_warp=False), four 128-thread CTAs per SM at 32-key tiles
    L = lambda bn, st, lw=False: C(bn, 1, 1, stages=st, loader_warp=lw)
    D128 = [L(64, 2, True), L(32, 2), L(32, 3), L(64, 2)]
    D64 = [L(64, 2, True), L(64, 2), L(64, 3), L(32, 4)]
CELLS = eval(os.environ["CELLS"]) if "CELLS" in os.environ else [
    (32, 16, 512, 128, True, D128), (16, 16, 1024, 128, True, D128), (32, 16, 512, 128, False, D128[:3]),
    (8, 16, 2048, 128, True, D128[:3]), (32, 32, 512, 64, True, D64), (16, 32, 1024, 64, True, D64)]
CHECKS = [(1, 4, 4, 512, 512), (2, 4, 2, 257, 257), (1, 4, 4, 300, 1000), (1, 2, 2, 1000, 600), (2, 2, 2, 1, 700),
          (1, 2, 2, 2048, 2048)]
DT = torch.bfloat16
log = open(os.path.join(OUT, "ring.log"), "w")


def say(s):
    print(s, flush=True); log.write(s + "\n"); log.flush()


def tag(c):
    return f"n{c.block_n}s{c.stages}" + (f"m{c.share}" if hasattr(c, "share") else "w0" if not c.loader_warp else "lw")


fails = 0
for d in (64, 128):
    configs = sorted({c for b, h, s, dd, causal, cs in CELLS if dd == d for c in cs}, key=str)
    for cfg in configs:
        for b, h, hk, sq, sk in CHECKS:
            for causal in (False, True):
                g = torch.Generator(device="cuda").manual_seed(sq * 3 + sk + causal)
                q = torch.randn(b, h, sq, d, device="cuda", dtype=DT, generator=g)
                k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=DT, generator=g) for _ in range(2))
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
                if not ok or os.environ.get("VERBOSE"):
                    say(f"check {tag(cfg)} D{d} B{b} H{h}/{hk} Sq{sq} Sk{sk} {'causal' if causal else 'full'}: "
                        f"{'ok' if ok else 'FAIL'} {msg}")
say(f"checks: {fails} failed of {sum(len(CHECKS) * 2 for d in (64, 128) for c in {c for *_, dd, _, cs in CELLS if dd == d for c in cs})}")

rows = []
for b, h, s, d, causal, configs in CELLS:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DT) for _ in range(3)) for _ in range(NSETS)]

    def cudnn(i):
        with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
            return torch.nn.functional.scaled_dot_product_attention(*sets[i % NSETS], is_causal=causal)

    fns = [lambda i: flashcore.attention(*sets[i % NSETS], causal=causal), cudnn]
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
        one = replay_us(graph(fn, 8), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    times = paired_rounds(graphs, ROUNDS)
    case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    row = dict(case=case, auto_us=median(times[0]), cudnn_us=median(times[1]), times=times, variants=[])
    line = f"{case:24s} auto {median(times[0]):7.1f} cudnn {median(times[1]):7.1f} ({median(times[0]) / median(times[1]):.3f})"
    for c, t, ok in zip([None] + configs, times[1:], [True] + oks):
        r = sorted(a / x for a, x in zip(times[0], t))
        row["variants"].append(dict(config=c and c.as_dict(), us=median(t), ratio=median(r), lo=r[0], hi=r[-1], ok=ok,
                                    tflops=flops / median(t) / 1e6))
        if c is not None:
            line += f" | {tag(c)} {median(t):7.1f} {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]{'' if ok else ' FAIL'}"
    rows.append(row)
    say(line)
    del graphs, sets
    torch.cuda.empty_cache()
json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, nsets=NSETS, dtype=str(DT),
               device=torch.cuda.get_device_name(), torch=torch.__version__), open(os.path.join(OUT, "ring.json"), "w"),
          indent=1)
