"""One shape, a few calls of one provider, for ncu: fc (flashcore dispatch) or fa4.
argv: provider, full|causal, S (B = 16384 / S, H = 16, D = 128, bf16)."""
import sys
import torch
prov, causal, S = sys.argv[1], sys.argv[2] == "causal", int(sys.argv[3])
B, H, D = 16384 // S, 16, 128
torch.manual_seed(0)
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
if prov == "fc":
    import flashcore
    for _ in range(3):
        flashcore.attention(q, k, v, causal=causal)
else:
    from flash_attn.cute import flash_attn_func
    qt, kt, vt = (t.transpose(1, 2).contiguous() for t in (q, k, v))
    for _ in range(3):
        flash_attn_func(qt, kt, vt, causal=causal)
torch.cuda.synchronize()
print("ok", prov)
