"""Eager host path of flashcore.attention on Gluon shapes vs cuDNN: host time per call,
and flashcore.bench.timing eager vs graph (the bench's own measure)."""
import time
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import flashcore
from flashcore.bench.timing import measure

def per_call(fn, n=300):
    for _ in range(20): fn()
    torch.cuda.synchronize(); t0 = time.perf_counter()
    for _ in range(n): fn()
    t1 = time.perf_counter(); torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6

def cudnn(q, k, v, causal):
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        return F.scaled_dot_product_attention(q, k, v, is_causal=causal)

print(f"{'shape':34s} {'fc host':>8s} {'cudnn host':>10s} | {'fc eager':>9s} {'fc graph':>9s} {'cud eager':>9s} {'cud graph':>9s}")
for (b, h, s, d, causal) in [(32, 16, 512, 128, True), (32, 16, 512, 128, False), (16, 16, 1024, 128, True),
                             (8, 16, 2048, 128, True), (32, 32, 512, 64, True), (16, 32, 1024, 64, False),
                             (1, 8, 512, 64, False)]:
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    fc = lambda: flashcore.attention(q, k, v, causal=causal)
    cu = lambda: cudnn(q, k, v, causal)
    hf, hc = per_call(fc), per_call(cu)
    t = {}
    for name, f in (("fc", fc), ("cu", cu)):
        for m in ("eager", "graph"):
            t[f"{name}-{m}"] = measure(lambda i, f=f: f(), mode=m, warmup_ms=20, rep_ms=100).median_us
    print(f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full':6s}         {hf:8.1f} {hc:10.1f} | "
          f"{t['fc-eager']:9.1f} {t['fc-graph']:9.1f} {t['cu-eager']:9.1f} {t['cu-graph']:9.1f}", flush=True)
