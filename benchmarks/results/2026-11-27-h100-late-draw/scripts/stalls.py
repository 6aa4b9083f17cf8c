"""One cell's auto config (the tree's gluon_fwd), four launches, for ncu's --launch-skip 3.
    CELL=B,Hq,Hkv,S,D CAUSAL=0|1 DTYPE=bf16|fp16 PYTHONPATH=$PWD/src python <this script>"""
import dataclasses
import os

import torch

from flashcore.kernels import gluon_fwd as gf

b, hq, hkv, s, d = (int(x) for x in os.environ["CELL"].split(","))
causal = os.environ.get("CAUSAL", "0") == "1"
dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
g = torch.Generator(device="cuda").manual_seed(5)
q = torch.randn(b, hq, s, d, device="cuda", dtype=dtype, generator=g)
k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * hq)
run = gf.prepare(q, k, v, causal, d ** -0.5, gf.Config(**dataclasses.asdict(cfg)))
for _ in range(4):
    run(q, k, v)
torch.cuda.synchronize()
print(cfg)
