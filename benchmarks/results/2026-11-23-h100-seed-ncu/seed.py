import torch, flashcore
torch.manual_seed(0)
for causal in (False, True):
    q, k, v = (torch.randn(1, 8, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3))
    for _ in range(6):
        flashcore.attention(q, k, v, causal=causal)
torch.cuda.synchronize()
