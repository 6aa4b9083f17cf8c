import cProfile, pstats, time, io, sys
import torch, triton
import flashcore
from flashcore.kernels import gluon_fwd as gf
torch.manual_seed(0)
q, k, v = (torch.randn(1, 8, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3))
def per_call(backend, n=3000):
    for _ in range(200): flashcore.attention(q, k, v, backend=backend)
    torch.cuda.synchronize()
    ts = []
    for r in range(5):
        t = time.perf_counter()
        for _ in range(n): flashcore.attention(q, k, v, backend=backend)
        ts.append((time.perf_counter() - t) / n * 1e6)
        torch.cuda.synchronize()
    return sorted(ts)
for b in ("triton", "gluon"):
    print(b, "host us/call", [round(x, 1) for x in per_call(b)])
fill = triton.runtime.driver.active.utils.fill_tma_descriptor
from flashcore.kernels.gluon_fwd import _layout
lay = _layout(64, 64, torch.float16)
print("layout", lay)
t = time.perf_counter()
for _ in range(0):
    fill(q.data_ptr(), 128, 2, 6, [1, 1, 64, 64], [1, 8, 512, 64], [262144, 32768, 64, 1], 0)
print("fill_tma_descriptor us", (time.perf_counter() - t) / 10000 * 1e6)
pr = cProfile.Profile(); pr.enable()
for _ in range(0): pass
for _ in range(3000): flashcore.attention(q, k, v, backend="gluon")
pr.disable(); torch.cuda.synchronize()
s = io.StringIO(); pstats.Stats(pr, stream=s).sort_stats("tottime").print_stats(18); print(s.getvalue()[:4000])
