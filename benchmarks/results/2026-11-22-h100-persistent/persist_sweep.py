"""H100: persistent Gluon ws variants against today's dispatch (tuned + heuristic) and cuDNN
on the standard preset's shapes, graph mode. Each timed config's output is checked against
cuDNN's (max abs diff) and for NaN on fresh inputs; the ragged-shape gate is the gpu tier."""
import json, os
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
from flashcore import dispatch
from flashcore.bench.timing import measure
from flashcore.kernels import gluon_fwd as gf

C = gf.Config
P = dict(persistent=True)
VARIANTS_ALL = {
    64: [C(128, 128, 8, 2, True, **P), C(128, 128, 8, 2, True, True, **P), C(192, 128, 12, 2, True, True, **P),
         C(128, 128, 8, 2, True), C(192, 128, 12, 2, True, True), C(64, 128, 4, 2)],
    128: [C(128, 128, 8, 2, True), C(128, 128, 8, 3, True), C(128, 128, 8, 2, True, **P),
          C(128, 64, 8, 3, True, **P), C(128, 128, 8, 2, True, True, **P), C(128, 64, 8, 4, True, **P)],
}
import sys
VARIANTS = {64: [C(128, 128, 8, 2, True, **P), C(128, 128, 8, 2, True, True, **P), C(192, 128, 12, 2, True, True, **P),
                 C(64, 64, 4, 2)],
            128: [C(128, 128, 8, 2, True, **P), C(128, 128, 8, 2, True, True, **P), C(128, 128, 8, 2, True),
                  C(128, 64, 8, 3, True, **P), C(64, 64, 4, 2)]}
CAUSALS = [c == "1" for c in os.environ.get("CAUSALS", "0,1").split(",")]
SEQS = [int(x) for x in os.environ.get("SEQS", "512,1024,2048,4096,8192").split(",")]


def tflops(b, h, s, d, causal, us):
    return 4 * b * h * s * s * d * (0.5 if causal else 1.0) / (us * 1e-6) / 1e12


rows = []
for d in [int(x) for x in os.environ.get('DS', '64,128').split(',')]:
    h = 4096 // d // 2 * 2 if d == 64 else 16
    h = 32 if d == 64 else 16
    for s in SEQS:
        b = 16384 // s
        for causal in CAUSALS:
            g = torch.Generator(device="cuda").manual_seed(s + d + causal)
            q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                ref = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
            scale = d ** -0.5
            base = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
            backend = dispatch.kernel_for("auto", q, k, v)
            tuned = dispatch.kernel_config(backend, 90, q.dtype, d, causal, s, s, b * h) if backend == "gluon" else None
            cands = [("cudnn", None), ("heuristic", base)]
            if tuned is not None and tuned != base:
                cands.append(("tuned", tuned))
            cands += [("variant", c) for c in VARIANTS[d] if c not in (base, tuned)]
            for tag, cfg in cands:
                name = f"{tag} {cfg}" if cfg else "cudnn"
                short = "cudnn" if cfg is None else (f"{tag[:4]} {cfg.block_m}x{cfg.block_n}s{cfg.num_stages}"
                         f"{' ws' if cfg.warp_specialize else ''}{' pp' if cfg.pingpong else ''}{' P' if cfg.persistent else ''}")
                try:
                    if cfg is None:
                        def fn(i):
                            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
                        diff, nan = 0.0, False
                    else:
                        why = gf.constraints(cfg, d)
                        if why:
                            raise ValueError(why)
                        out = torch.full_like(q, float("nan"))
                        gf.forward(q, k, v, causal, scale, cfg, out=out)
                        torch.cuda.synchronize()
                        nan = bool(out.isnan().any())
                        diff = (out.float() - ref.float()).abs().max().item()
                        fn = lambda i, c=cfg: gf.forward(q, k, v, causal, scale, c)
                    t = measure(fn, mode="graph", warmup_ms=25, rep_ms=120)
                    ok = not nan and diff < 3e-2
                    rows.append(dict(shape=[b, h, s, d], causal=causal, kernel=name, short=short, ok=ok, diff=diff,
                                     us=t.median_us, p10=t.p10_us, p90=t.p90_us,
                                     tflops=tflops(b, h, s, d, causal, t.median_us)))
                except Exception as exc:  # noqa
                    rows.append(dict(shape=[b, h, s, d], causal=causal, kernel=name, short=short, ok=False, us=None,
                                     err=" ".join(str(exc).split())[:300]))
                r = rows[-1]
                print(f"D{d} S{s} {'causal' if causal else 'full  '} {short:28s} "
                      + (f"{r['us']:8.1f} us [{r['p10']:.1f}-{r['p90']:.1f}] {r['tflops']:5.0f} TF diff {r['diff']:.1e} {'OK' if r['ok'] else 'BAD'}"
                         if r["us"] else r.get("err", "")), flush=True)
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "persist_sweep.json"), "w"), indent=1)
