"""One cell's auto config with fields replaced (FIELDS="masked_free=1,..."), four launches, for
ncu's --launch-skip 3. CELL=B,Hq,Hkv,S,D CAUSAL=0|1 DTYPE=bf16|fp16 PYTHONPATH=$PWD/src python <this>"""
import dataclasses
import os

import torch

from flashcore.kernels import gluon_fwd as gf

b, hq, hkv, s, d = (int(x) for x in os.environ["CELL"].split(","))
causal = os.environ.get("CAUSAL", "0") == "1"
dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
fields = {kv.split("=")[0]: int(kv.split("=")[1]) for kv in os.environ.get("FIELDS", "").split(",") if kv}
g = torch.Generator(device="cuda").manual_seed(5)
q = torch.randn(b, hq, s, d, device="cuda", dtype=dtype, generator=g)
k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * hq, group=hq // hkv)
cfg = dataclasses.replace(cfg, **{n: type(getattr(cfg, n))(v) for n, v in fields.items()})
run = gf.prepare(q, k, v, causal, d ** -0.5, cfg)
for _ in range(4):
    run(q, k, v)
torch.cuda.synchronize()
print(cfg)
