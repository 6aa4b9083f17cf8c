"""One shape, a few calls of one kernel, for ncu. argv: fc | np192 | p192 | fa4 | cudnn, full | causal, S, D
(B = 16384 / S, H = 2048 / D, bf16). fc: flashcore's dispatch; np192 / p192: Gluon 192x128 ping-pong,
two stages, one CTA per item / persistent."""
import sys
import torch
prov, causal, S, D = sys.argv[1], sys.argv[2] == "causal", int(sys.argv[3]), int(sys.argv[4])
B, H = 16384 // S, 2048 // D
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
if prov == "fa4":
    from flash_attn.cute import flash_attn_func
    qt, kt, vt = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    for _ in range(3):
        flash_attn_func(qt, kt, vt, causal=causal)
elif prov == "cudnn":
    from torch.nn.attention import SDPBackend, sdpa_kernel
    with sdpa_kernel(SDPBackend.CUDNN_ATTENTION):
        for _ in range(3):
            torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=causal)
elif prov == "fc":
    import flashcore
    for _ in range(3):
        flashcore.attention(q, k, v, causal=causal)
else:
    from flashcore.kernels import gluon_fwd as gf
    cfg = gf.Config(192, 128, 12, 2, True, True, persistent=prov == "p192")
    run = gf.prepare(q, k, v, causal, D ** -0.5, cfg)
    for _ in range(3):
        run(q, k, v)
torch.cuda.synchronize()
print("ok", prov)
