"""One launch each under ncu (--profile-from-start off), bf16: Gluon (auto, as shipped) against
the CuTe ring of several warpgroups. Run:
ncu --profile-from-start off --section ... python ncu_wgs.py"""
import torch
import flashcore
from flashcore.kernels import cute_fwd as cf

W = lambda bn, st, w, **kw: cf.Config(bn, 1, 1, wgs=w, stages=st, **kw)
CASES = [((2, 16, 8192, 128), False, [("auto", "auto"), ("128x128s3", W(128, 3, 2)), ("128x128s3T", W(128, 3, 2, turns=True))]),
         ((2, 32, 8192, 64), True, [("auto", "auto"), ("192x96s3LT", W(96, 3, 3, lazy=True, turns=True))])]
runs = []
for (b, h, s, d), causal, cases in CASES:
    g = torch.Generator(device="cuda").manual_seed(0)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
    for name, how in cases:
        if how == "auto":
            fn = lambda q=q, k=k, v=v, causal=causal: flashcore.attention(q, k, v, causal=causal)
        else:
            fn = lambda q=q, k=k, v=v, causal=causal, d=d, how=how: cf.forward(q, k, v, causal, d ** -0.5, how)
        for _ in range(3):
            fn()
        runs.append((f"D{d} S{s} {'causal' if causal else 'full'} {name}", fn))
torch.cuda.synchronize()
for name, fn in runs:
    torch.cuda.cudart().cudaProfilerStart()
    fn()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print("profiled", name, flush=True)
