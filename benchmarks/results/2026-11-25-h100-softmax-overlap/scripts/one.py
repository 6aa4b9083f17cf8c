"""One shape, a few calls of one kernel, for ncu (ncu.sh). argv: fc | ring | ringst | fa4, full | causal, S, D
(B = 16384 / S, H = 2048 / D, bf16). fc: flashcore's dispatch (Gluon on long rows); ring: cute_fwd.RINGS[D];
ringst: the same with straight=True; fa4: flash_attn.cute on (B, S, H, D) copies."""
import dataclasses
import sys

import torch

prov, causal, S, D = sys.argv[1], sys.argv[2] == "causal", int(sys.argv[3]), int(sys.argv[4])
B, H = 16384 // S, 2048 // D
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
if prov == "fa4":
    from flash_attn.cute import flash_attn_func
    qt, kt, vt = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    call = lambda: flash_attn_func(qt, kt, vt, causal=causal)  # noqa: E731
elif prov == "fc":
    import flashcore
    call = lambda: flashcore.attention(q, k, v, causal=causal)  # noqa: E731
else:
    from flashcore.kernels import cute_fwd as cf
    cfg = cf.RINGS[D] if prov == "ring" else dataclasses.replace(cf.RINGS[D], straight=True)
    run = cf.prepare(q, k, v, causal, D ** -0.5, cfg)
    call = lambda: run(q, k, v)  # noqa: E731
for _ in range(3):
    call()
torch.cuda.synchronize()
print("ok", prov)
