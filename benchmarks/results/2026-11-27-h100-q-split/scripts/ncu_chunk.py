"""One cell's Gluon kernel with the causal chunk of heads forced to CHUNK (0: as shipped), run
four times (the first compiles); run under ncu with --launch-skip 3 --launch-count 1 to read one
launch's DRAM and L2 bytes with caches flushed before it.
    CHUNK=6 CELL=4,16,4096,128 DTYPE=bf16 ncu ... python <this script>"""
import os

import torch

from flashcore.kernels import gluon_fwd as gf

b, h, s, d = (int(x) for x in os.environ.get("CELL", "4,16,4096,128").split(","))
chunk = int(os.environ.get("CHUNK", "0"))
if chunk:
    gf.causal_chunk = lambda *args: chunk
dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
g = torch.Generator(device="cuda").manual_seed(3)
q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))
cfg = gf.heuristic_config(90, d, 2, True, s, s, b * h)
run = gf.prepare(q, k, v, True, d ** -0.5, cfg)
for _ in range(4):
    run(q, k, v)
torch.cuda.synchronize()
print("chunk", chunk or "shipped", "config", cfg)
