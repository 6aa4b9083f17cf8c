"""One attention launch to read under Nsight Compute: B=32 H=16 S=512 D=128 causal (the standard
preset's one cell under a peer), four calls of PROVIDER (flashcore = auto, or cudnn = SDPA's
cuDNN backend) on fresh independent inputs; ncu reads the fourth.
    PYTHONPATH=$PWD/src PROVIDER=flashcore|cudnn DTYPE=bf16 python <this script>"""
import os

import torch
import torch.nn.functional as F

import flashcore

B, H, S, D = (int(x) for x in os.environ.get("CELL", "32,16,512,128").split(","))
CAUSAL = os.environ.get("CAUSAL", "1") == "1"
dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
g = torch.Generator(device="cuda").manual_seed(7)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=dtype, generator=g) for _ in range(3))
if os.environ["PROVIDER"] == "cudnn":
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        for _ in range(4):
            F.scaled_dot_product_attention(q, k, v, is_causal=CAUSAL)
elif os.environ.get("PP") == "1":  # the 128x128 ping-pong persistent build (call 3)
    from flashcore.kernels import gluon_fwd as gf
    cfg = gf.Config(128, 128, 8, 2, warp_specialize=True, pingpong=True, persistent=True)
    for _ in range(4):
        gf.forward(q, k, v, CAUSAL, D ** -0.5, cfg)
else:
    for _ in range(4):
        flashcore.attention(q, k, v, causal=CAUSAL)
torch.cuda.synchronize()
