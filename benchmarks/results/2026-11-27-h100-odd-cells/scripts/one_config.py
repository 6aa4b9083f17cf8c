"""A few calls of one Gluon config, for ncu (run 13). argv: D, block_m (64: stage 1 64x128;
192: the three-warpgroup build); B=1 H=32 S=4096 causal bf16."""
import sys

import torch

from flashcore.kernels import gluon_fwd as gf

d, block_m = int(sys.argv[1]), int(sys.argv[2])
cfg = gf.Config(64, 128, 4, 2) if block_m == 64 else gf._STAGE1_INSTEAD[64]
torch.manual_seed(0)
q, k, v = (torch.randn(1, 32, 4096, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
run = gf.prepare(q, k, v, True, d ** -0.5, cfg, store_lse=False)
for _ in range(3):
    run(q, k, v)
torch.cuda.synchronize()
print("ok", d, block_m)
