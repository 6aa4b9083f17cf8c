"""One cell, one provider, six launches (ncu profiles the last: --launch-skip 5).
    PROVIDER=flashcore|fa4 CELL=B,H,S,D CAUSAL=0|1 DTYPE=bf16|fp16 python <this script>
flashcore runs auto through the API; FA4 runs flash_attn.cute.flash_attn_func on (B, S, H, D)."""
import os

import torch

b, h, s, d = (int(x) for x in os.environ["CELL"].split(","))
causal = os.environ.get("CAUSAL", "0") == "1"
dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
g = torch.Generator(device="cuda").manual_seed(5)
q, k, v = (torch.randn(b, s, h, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))
if os.environ["PROVIDER"] == "fa4":
    from flash_attn.cute import flash_attn_func

    def call():
        return flash_attn_func(q, k, v, causal=causal)
else:
    import flashcore

    def call():
        return flashcore.attention(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal)
for _ in range(6):
    out = call()
torch.cuda.synchronize()
print(os.environ["PROVIDER"], type(out))
