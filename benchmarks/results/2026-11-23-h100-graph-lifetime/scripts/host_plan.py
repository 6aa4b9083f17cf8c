"""Host path at the seed shape with plans: per-call host time of each piece (H100 host)."""
import json, os, statistics, sys, time
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
import flashcore
from flashcore import ops, plans

torch.manual_seed(0)
dev = "cuda"
B = int(sys.argv[1]) if len(sys.argv) > 1 else 1
q, k, v = (torch.randn(B, 8, 512, 64, device=dev, dtype=torch.float16) for _ in range(3))


def host_us(fn, n=3000, reps=5):
    """Median over reps of the mean host time per call (the GPU is never the limit here:
    calls are queued faster than ~8 us kernels run only if host < kernel)."""
    for _ in range(300):
        fn()
    torch.cuda.synchronize()
    per = []
    for _ in range(reps):
        t0 = time.perf_counter()
        for _ in range(n):
            fn()
        per.append((time.perf_counter() - t0) / n * 1e6)
        torch.cuda.synchronize()
    return statistics.median(per), min(per), max(per)


def ctx_fn(backend):
    def f():
        with sdpa_kernel(backend):
            return F.scaled_dot_product_attention(q, k, v)
    return f


rows = {
    "sdpa default": lambda: F.scaled_dot_product_attention(q, k, v),
    "sdpa cudnn (ctx per call)": ctx_fn(SDPBackend.CUDNN_ATTENTION),
    "sdpa flash (ctx per call)": ctx_fn(SDPBackend.FLASH_ATTENTION),
    "flashcore.attention": lambda: flashcore.attention(q, k, v),
    "flashcore.attention causal": lambda: flashcore.attention(q, k, v, causal=True),
    "flashcore.attention return_lse": lambda: flashcore.attention(q, k, v, return_lse=True),
    "ops.fused_forward (no plan)": lambda: ops.fused_forward(q, k, v, False, 0.125),
    "plans.key": lambda: plans.key(q, k, v, False, None, False, "auto"),
    "torch.empty_like": lambda: torch.empty_like(q),
    "flashcore.attention backend=triton": lambda: flashcore.attention(q, k, v, backend="triton"),
    "is_current_stream_capturing": torch.cuda.is_current_stream_capturing,
}
try:
    from flashcore.kernels.launch import stream_scratch
    rows["launch.stream_scratch"] = lambda: stream_scratch(4096, q.device)
except ImportError:
    pass
flashcore.attention(q, k, v)
key = plans.key(q, k, v, False, None, False, "auto")
run = plans.get(key)
rows["plan run() only"] = lambda: run(q, k, v)
res = {}
print(f"B={B}  {'what':34s} {'median us':>9s} {'min':>7s} {'max':>7s}")
for name, fn in rows.items():
    med, lo, hi = host_us(fn)
    res[name] = dict(median_us=med, min_us=lo, max_us=hi)
    print(f"B={B}  {name:34s} {med:9.2f} {lo:7.2f} {hi:7.2f}", flush=True)
if os.environ.get("OUT"):
    with open(os.path.join(os.environ["OUT"], f"host_plan_b{B}_{os.environ.get('TAG', '')}.json"), "w") as f:
        json.dump(dict(shape=[B, 8, 512, 64], dtype="fp16", rows=res), f, indent=1)
