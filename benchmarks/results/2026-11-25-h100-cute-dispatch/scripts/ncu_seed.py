"""One launch each, under ncu (--profile-from-start off): the seed's B=1 full cell on the cute
kernel (split 2) and on Gluon, B=2 full on the cute kernel (two warpgroups), B=2 full on Gluon.
Run: ncu --profile-from-start off --section ... python ncu_seed.py"""
import torch
import flashcore
from flashcore.kernels import cute_fwd as cf

CASES = [("cute B1 full", 1, cf.Config(128, 2, 2)), ("gluon B1 full", 1, "gluon"),
         ("cute B2 full", 2, cf.Config(128, 1, 4, wgs=2)), ("gluon B2 full", 2, "gluon")]
g = torch.Generator(device="cuda").manual_seed(0)
runs = []
for name, b, how in CASES:
    q, k, v = (torch.randn(b, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    if how == "gluon":
        fn = lambda q=q, k=k, v=v: flashcore.attention(q, k, v, backend="gluon")
    else:
        fn = lambda q=q, k=k, v=v, how=how: cf.forward(q, k, v, False, 0.125, how)
    for _ in range(3):
        fn()
    runs.append((name, fn))
torch.cuda.synchronize()
for name, fn in runs:
    torch.cuda.cudart().cudaProfilerStart()
    fn()
    torch.cuda.synchronize()
    torch.cuda.cudart().cudaProfilerStop()
    print("profiled", name, flush=True)
