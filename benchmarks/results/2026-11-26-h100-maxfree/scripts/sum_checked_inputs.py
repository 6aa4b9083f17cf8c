"""Inputs for the max-free checks: random, keys growing along the sequence (the redo runs on
many tiles), or one key scoring hundreds of nats above the rest (its exp overflows)."""
import torch


def inputs(kind, b, h, sq, sk, d, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, h, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    if kind == "rising":
        k = (k.float() * torch.linspace(1.0, 6.0, sk, device="cuda").view(1, 1, -1, 1)).to(dtype)
    elif kind == "spike":
        q = (q.float() + 1.0).to(dtype)
        k[:, :, min(700, sk - 1)] = 40.0
    return q, k, v
