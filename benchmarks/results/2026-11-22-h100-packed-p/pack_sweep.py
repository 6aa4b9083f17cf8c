"""H100: P converted to the MMA operand with one packed cvt per register pair (no PRMT half swap)
against the previous build (gf_orig), interleaved, graph mode, plus an accuracy check of both
on a slice against an fp32 reference (and cuDNN's error on the same slice).

gf_orig.py, next to this script, is the previous kernel module with absolute imports:
  git show 97ad4e8:src/flashcore/kernels/gluon_fwd.py | sed -e 's/^from \.\.reference/from flashcore.reference/' \
    -e 's/^from \.launch/from flashcore.kernels.launch/' -e 's/^from \.triton_fwd/from flashcore.kernels.triton_fwd/' > gf_orig.py
"""
import json, os, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, os.path.dirname(__file__))
import gf_orig
from flashcore.bench.timing import measure
from flashcore.kernels import gluon_fwd as gf

C = gf.Config
MODS = {"orig": gf_orig, "pack": gf}

def tflops(b, h, s, d, causal, us):
    return 4 * b * h * s * s * d * (0.5 if causal else 1.0) / (us * 1e-6) / 1e12

def ref_slice(q, k, v, causal):
    qs, ks, vs = (t[:1, :2].double() for t in (q, k, v))
    return F.scaled_dot_product_attention(qs, ks, vs, is_causal=causal).float()

SHAPES = [(64, 1024, False), (64, 4096, False), (64, 8192, False), (64, 4096, True), (64, 8192, True),
          (128, 1024, False), (128, 8192, False), (128, 2048, True), (128, 8192, True)]
rows = []
for d, s, causal in SHAPES:
    h = 32 if d == 64 else 16
    b = 16384 // s
    for dtype in ([torch.bfloat16, torch.float16] if s == 1024 else [torch.bfloat16]):
        g = torch.Generator(device="cuda").manual_seed(s + d + causal)
        q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))
        ref = ref_slice(q, k, v, causal)
        with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
            cud = F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        cud_err = (cud[:1, :2].float() - ref).abs().max().item()
        base = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
        cfgs = [base]
        if d == 64 and s <= 4096:
            cfgs += [C(192, 128, 12, 2, True, True), C(128, 128, 8, 2, True, persistent=True)]
        if dtype != torch.bfloat16:
            cfgs = [base]
        for cfg in cfgs:
            short = f"{cfg.block_m}x{cfg.block_n}s{cfg.num_stages}{' ws' if cfg.warp_specialize else ''}{' pp' if cfg.pingpong else ''}{' P' if cfg.persistent else ''}"
            res = {}
            for rep in range(2):
                for tag in (("orig", "pack") if rep == 0 else ("pack", "orig")):
                    m = MODS[tag]
                    out = torch.full_like(q, float("nan"))
                    m.forward(q, k, v, causal, d ** -0.5, m.Config(**cfg.as_dict()), out=out)
                    torch.cuda.synchronize()
                    err = (out[:1, :2].float() - ref).abs().max().item()
                    nan = bool(out.isnan().any())
                    t = measure(lambda i, m=m: m.forward(q, k, v, causal, d ** -0.5, m.Config(**cfg.as_dict())),
                                mode="graph", warmup_ms=25, rep_ms=100)
                    res.setdefault(tag, []).append(t.median_us)
                    rows.append(dict(d=d, s=s, causal=causal, dtype=str(dtype), cfg=short, version=tag, rep=rep,
                                     us=t.median_us, p10=t.p10_us, p90=t.p90_us, err=err, cudnn_err=cud_err, nan=nan,
                                     ok=(not nan) and err <= 2 * cud_err + 1e-3,
                                     tflops=tflops(b, h, s, d, causal, t.median_us)))
            o, p = min(res["orig"]), min(res["pack"])
            okp = all(r["ok"] for r in rows if r["version"] == "pack" and r["s"] == s and r["d"] == d and r["cfg"] == short and r["causal"] == causal)
            print(f"D{d} S{s:5d} {'causal' if causal else 'full  '} {str(dtype)[6:]:8s} {short:18s} orig {o:8.1f} pack {p:8.1f} "
                  f"gain {o / p:5.3f}  {tflops(b, h, s, d, causal, p):5.0f} TF  err {rows[-1]['err']:.1e} cudnn {cud_err:.1e} {'OK' if okp else 'BAD'}", flush=True)
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), "pack_sweep.json"), "w"), indent=1)
