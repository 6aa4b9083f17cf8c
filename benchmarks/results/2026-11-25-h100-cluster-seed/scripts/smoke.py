"""One compile + launch + check of the cluster-split kernel at the seed (B=1 H=8 S=512 D=64
fp16 full). argv: split tiles [causal]. Run under `timeout`: a deadlocked kernel must not eat
the device budget."""
import os, sys, time
import torch
from flashcore.kernels import cute_fwd as cf
from flashcore.bench.correctness import judge

split, tiles = int(sys.argv[1]), int(sys.argv[2])
causal = len(sys.argv) > 3 and sys.argv[3] == "causal"
g = torch.Generator(device="cuda").manual_seed(1)
q, k, v = (torch.randn(1, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
out = torch.full_like(q, float("nan"))
t0 = time.time()
cf.compiled("float16", 64, cf.Config(128, split, tiles), causal, True)
t1 = time.time()
print(f"s{split}t{tiles} causal={causal}: compiled {t1 - t0:.1f}s", flush=True)
cf.forward(q, k, v, causal, 0.125, cf.Config(128, split, tiles), out)
print("  launched", flush=True)
torch.cuda.synchronize()
print(f"  ran {time.time() - t1:.2f}s; nan {int(out.isnan().sum())}; {judge(out, q, k, v, causal=causal, scale=0.125)}", flush=True)
ts = []
for i in range(50):
    torch.cuda.synchronize(); a = time.perf_counter(); cf.forward(q, k, v, causal, 0.125, cf.Config(128, split, tiles), out); torch.cuda.synchronize(); ts.append((time.perf_counter() - a) * 1e6)
print(f"  eager median {sorted(ts)[25]:.1f} us", flush=True)
