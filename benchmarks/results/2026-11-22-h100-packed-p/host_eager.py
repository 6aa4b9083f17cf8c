"""Where the eager Gluon call's host time goes (H100 host)."""
import cProfile, io, pstats, time, os
import torch
import flashcore
from flashcore.kernels import gluon_fwd as gf

def per_call(fn, n=300):
    for _ in range(20): fn()
    torch.cuda.synchronize(); t0 = time.perf_counter()
    for _ in range(n): fn()
    t1 = time.perf_counter(); torch.cuda.synchronize()
    return (t1 - t0) / n * 1e6

def latency(fn, n=50):
    ts = []
    for _ in range(n):
        torch.cuda.synchronize(); t0 = time.perf_counter(); fn(); torch.cuda.synchronize(); ts.append(time.perf_counter() - t0)
    ts.sort(); return ts[len(ts) // 2] * 1e6

for (b, h, s, d, causal) in [(2, 16, 512, 128, True), (2, 16, 512, 128, False), (2, 32, 512, 64, False), (1, 8, 512, 64, False)]:
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    f = lambda: flashcore.attention(q, k, v, causal=causal)
    f(); torch.cuda.synchronize()
    st = torch.cuda.Event(enable_timing=True); en = torch.cuda.Event(enable_timing=True)
    st.record(); f(); en.record(); torch.cuda.synchronize(); ev = st.elapsed_time(en) * 1e3
    print(f"B{b} H{h} S{s} D{d} causal={causal}: host/call {per_call(f):.1f} us, sync latency {latency(f):.1f} us, events 1 call {ev:.1f} us", flush=True)
    cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
    out = torch.empty_like(q); lse = q.new_empty(q.shape[:3], dtype=torch.float32)
    print("   gf.forward host", f"{per_call(lambda: gf.forward(q, k, v, causal, d ** -0.5, cfg, out, lse)):.1f}",
          " desc x4", f"{per_call(lambda: [gf._desc(q, 64) for _ in range(4)]):.1f}",
          " empty_like+new_empty", f"{per_call(lambda: (torch.empty_like(q), q.new_empty(q.shape[:3], dtype=torch.float32))):.1f}",
          " zeros(1)", f"{per_call(lambda: torch.zeros(1, dtype=torch.int32, device=q.device)):.1f}", cfg, flush=True)
    pr = cProfile.Profile(); pr.enable()
    for _ in range(200): f()
    pr.disable(); torch.cuda.synchronize()
    sio = io.StringIO(); pstats.Stats(pr, stream=sio).sort_stats("tottime").print_stats(18); print(sio.getvalue()[-3500:])
