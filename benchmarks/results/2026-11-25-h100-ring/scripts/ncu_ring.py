"""One launch each under ncu (--profile-from-start off): D=128 S=512 causal B=32 H=16 bf16 on
auto (Gluon 64x32, as shipped) and on ring configs of the CuTe kernel. Run:
ncu --profile-from-start off --section ... python ncu_ring.py"""
import os
import torch
import flashcore
from flashcore.kernels import cute_fwd as cf

C = cf.Config
B, H, S, D = (int(x) for x in os.environ.get("SHAPE", "32,16,512,128").split(","))
CASES = [("auto", "auto"), ("ring n32s5m1", C(32, 1, 1, stages=5)), ("ring n32s5m2", C(32, 1, 1, stages=5, share=2)),
         ("ring n64s2m1", C(64, 1, 1, stages=2))]
g = torch.Generator(device="cuda").manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(3))
runs = []
for name, how in CASES:
    if how == "auto":
        fn = lambda: flashcore.attention(q, k, v, causal=True)
    else:
        fn = lambda how=how: cf.forward(q, k, v, True, D ** -0.5, how)
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
