"""Run 4 (debug): which rows does the early_s0 build get wrong, and where does it fault?
argv[1] = "rows": per (batch, head, 64-row block) max error against the fp64 reference at
B2 H16 S2000 causal (run 3's failing check), for early_s0 and for q_ahead alone.
argv[1] = "fault": one launch at B1 H8 Sq1500 Sk700 causal (run under compute-sanitizer).
argv[2] (optional): the rescale, "lazy" (max_free off) or "eager", to see whether the
max-free loop is involved."""
import sys

import torch

from flashcore.kernels import gluon_fwd as gf
from flashcore.reference import attention_reference

RESCALE = {"maxfree": {}, "lazy": {"max_free": False}, "eager": {"lazy_rescale": False}}
extra = RESCALE[sys.argv[2] if len(sys.argv) > 2 else "maxfree"]
cfg = gf.Config(128, 128, 8, 2, True, persistent=True, q_ahead=True, early_s0=True, **extra)


def case(b, h, sq, sk, seed=0):
    g = torch.Generator(device="cuda").manual_seed(seed)
    return [torch.randn(b, h, s, 128, device="cuda", dtype=torch.bfloat16, generator=g) for s in (sq, sk, sk)]


if sys.argv[1] == "fault":
    q, k, v = case(1, 8, 1500, 700)
    out = gf.forward(q, k, v, True, 128 ** -0.5, cfg)[0]
    torch.cuda.synchronize()
    print("no fault; nan:", out.isnan().sum().item())
else:
    q, k, v = case(2, 16, 2000, 2000)
    ref = attention_reference(q.double(), k.double(), v.double(), causal=True, scale=128 ** -0.5)
    for name, c in (("early_s0", cfg), ("q_ahead", gf.Config(128, 128, 8, 2, True, persistent=True, q_ahead=True,
                                                              **extra))):
        out = gf.forward(q, k, v, True, 128 ** -0.5, c)[0]
        torch.cuda.synchronize()
        err = (out.double() - ref).abs().amax(-1)  # B, H, S
        blocks = err.view(2, 16, -1)[:, :, :1984].reshape(2, 16, 31, 64).amax(-1)
        bad = (blocks > 0.05).nonzero().tolist()
        print(name, "max err", err.max().item(), "bad (b, h, 64-row block):", len(bad), bad[:40])
