"""One shape, a few calls of one Gluon config, for ncu. argv: full | causal, S, D, Config
expression (gf.Config fields). B = 16384 / S, H = 2048 / D, bf16."""
import sys
import torch
from flashcore.kernels import gluon_fwd as gf
causal, S, D, cfg = sys.argv[1] == "causal", int(sys.argv[2]), int(sys.argv[3]), eval("gf." + sys.argv[4])
B, H = 16384 // S, 2048 // D
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
run = gf.prepare(q, k, v, causal, D ** -0.5, cfg)
for _ in range(3):
    run(q, k, v)
torch.cuda.synchronize()
print("ok", cfg)
