"""H100 A/B: the working tree's Gluon kernel (new) against gf_orig.py (HEAD), in CUDA graphs replayed
alternately (ABBA rounds of ~10 ms each), so that clock and thermal drift hit both alike; per round the
ratio orig/new; reported: median ratio and its p25-p75, plus each version's median time. Accuracy of
each against an fp64 reference slice (last batch, last two heads) and cuDNN's error on it.

gf_orig.py: git show 5519c41:src/flashcore/kernels/gluon_fwd.py with absolute imports (see README of the
results folder)."""
import json, os, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import gf_orig
from flashcore.kernels import gluon_fwd as gf

C = gf.Config
MODS = {"orig": gf_orig, "new": gf}
P128 = C(128, 128, 8, 2, True, persistent=True)
P128PP = C(128, 128, 8, 2, True, True, True)
NP2 = C(192, 128, 12, 2, True, True)
P3 = C(192, 128, 12, 3, True, True, True)
CASES = [(128, 16384, False, P128), (128, 8192, False, P128), (128, 4096, False, P128), (128, 2048, False, P128),
         (128, 8192, True, P128), (128, 2048, True, P128), (128, 1024, True, P128),
         (64, 8192, False, NP2), (64, 4096, False, P3), (64, 16384, True, NP2), (64, 8192, True, NP2)]
ROUNDS = int(os.environ.get("AB_ROUNDS", "16"))


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
for d, s, causal, cfg in CASES:
    h = 32 if d == 64 else 16
    b = 16384 // s
    gen = torch.Generator(device="cuda").manual_seed(s + d + causal)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=gen) for _ in range(3))
    sl = (slice(b - 1, b), slice(h - 2, h))
    ref = F.scaled_dot_product_attention(*(t[sl].double() for t in (q, k, v)), is_causal=causal).float()
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        cud_err = (F.scaled_dot_product_attention(q, k, v, is_causal=causal)[sl].float() - ref).abs().max().item()
    outs, graphs, errs = {}, {}, {}
    for tag, m in MODS.items():
        mc = m.Config(**cfg.as_dict())
        out = torch.full_like(q, float("nan"))
        m.forward(q, k, v, causal, d ** -0.5, mc, out=out)
        torch.cuda.synchronize()
        errs[tag] = ((out[sl].float() - ref).abs().max().item(), bool(out.isnan().any()))
        one = replay_us(graph(lambda m=m, mc=mc: m.forward(q, k, v, causal, d ** -0.5, mc), 1), 1)
        calls = max(1, int(10_000 / one))
        graphs[tag] = (graph(lambda m=m, mc=mc: m.forward(q, k, v, causal, d ** -0.5, mc), calls), calls)
    for tag in MODS:  # warm-up
        for _ in range(3):
            replay_us(*graphs[tag])
    times = {"orig": [], "new": []}
    for r in range(ROUNDS):
        order = ("orig", "new", "new", "orig") if r % 2 == 0 else ("new", "orig", "orig", "new")
        got = {"orig": [], "new": []}
        for tag in order:
            got[tag].append(replay_us(*graphs[tag]))
        for tag in got:
            times[tag].append(sum(got[tag]) / 2)
    ratios = sorted(o / n for o, n in zip(times["orig"], times["new"]))
    med = lambda x: sorted(x)[len(x) // 2]
    ok = all((not nan) and err <= 2 * cud_err + 1e-3 for err, nan in errs.values())
    row = dict(d=d, s=s, causal=causal, cfg=cfg.as_dict(), orig_us=med(times["orig"]), new_us=med(times["new"]),
               ratio=med(ratios), ratio_p25=ratios[len(ratios) // 4], ratio_p75=ratios[3 * len(ratios) // 4],
               err_orig=errs["orig"][0], err_new=errs["new"][0], cudnn_err=cud_err, ok=ok,
               tflops_new=4 * b * h * s * s * d * (0.5 if causal else 1) / (med(times["new"]) * 1e-6) / 1e12)
    rows.append(row)
    print(f"D{d:3d} S{s:5d} {'causal' if causal else 'full  '} {cfg.block_m}x{cfg.block_n}s{cfg.num_stages}"
          f"{' pp' if cfg.pingpong else ''}{' P' if cfg.persistent else ''}  orig {row['orig_us']:8.1f} new "
          f"{row['new_us']:8.1f}  ratio {row['ratio']:.3f} [{row['ratio_p25']:.3f}, {row['ratio_p75']:.3f}] "
          f"{row['tflops_new']:5.0f} TF  err {errs['new'][0]:.1e} cudnn {cud_err:.1e} {'OK' if ok else 'BAD'}",
          flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "ab.json"), "w"), indent=1)
