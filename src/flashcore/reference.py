"""Pure-PyTorch twin of :func:`flashcore.attention`, with exactly the same semantics.

Tests, bench, tune and profile all compare against this function. It runs on any
device, supports autograd through plain PyTorch ops, and processes queries in
chunks so that the score matrix never needs more than ``max_chunk_elems`` elements.
"""

from __future__ import annotations

import math

import torch

LOG2E = math.log2(math.e)


def causal_offset(seq_q: int, seq_k: int) -> int:
    """Bottom-right alignment: query ``i`` sees key ``j`` iff ``j <= i + causal_offset``."""
    return seq_k - seq_q


def default_scale(head_dim: int) -> float:
    return 1.0 / math.sqrt(head_dim)


def attention_reference(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool = False,
    scale: float | None = None,
    return_lse: bool = False,
    compute_dtype: torch.dtype | None = None,
    max_chunk_elems: int = 1 << 28,
):
    """Attention in plain PyTorch ops.

    ``compute_dtype`` defaults to ``q.dtype`` promoted to at least float32, so half
    inputs are computed in fp32 and the output is cast back to ``q.dtype``. Passing
    ``compute_dtype=torch.float16`` reproduces what PyTorch itself computes in that
    dtype, which is how tests measure "PyTorch's own error".

    LSE is the natural-log log-sum-exp of the scaled scores, in ``compute_dtype``
    (float32 for half inputs), ``-inf`` for rows with no visible key.
    """
    batch, heads_q, seq_q, head_dim = q.shape
    heads_kv, seq_k = k.shape[1], k.shape[2]
    scale = default_scale(head_dim) if scale is None else float(scale)
    if compute_dtype is None:
        compute_dtype = torch.promote_types(q.dtype, torch.float32)
    group = heads_q // heads_kv
    qc, kc, vc = (t.to(compute_dtype) for t in (q, k, v))
    if group > 1:
        kc = kc.repeat_interleave(group, dim=1)
        vc = vc.repeat_interleave(group, dim=1)

    rows_per_chunk = max(1, max_chunk_elems // max(1, batch * heads_q * seq_k))
    outs, lses = [], []
    for start in range(0, seq_q, rows_per_chunk):
        stop = min(seq_q, start + rows_per_chunk)
        out, lse = _chunk(qc[:, :, start:stop], kc, vc, start, seq_q, causal, scale)
        outs.append(out)
        lses.append(lse)
    if outs:
        out, lse = torch.cat(outs, dim=2), torch.cat(lses, dim=2)
    else:
        out = qc.new_zeros((batch, heads_q, 0, v.shape[-1]))
        lse = qc.new_zeros((batch, heads_q, 0))
    out = out.to(q.dtype)
    lse = lse.to(torch.promote_types(compute_dtype, torch.float32))
    return (out, lse) if return_lse else out


def _chunk(q, k, v, row0: int, seq_q: int, causal: bool, scale: float):
    scores = torch.matmul(q, k.transpose(-1, -2)) * scale
    if causal:
        rows = torch.arange(row0, row0 + q.shape[2], device=q.device)[:, None]
        cols = torch.arange(k.shape[2], device=q.device)[None, :]
        hidden = cols > rows + causal_offset(seq_q, k.shape[2])
        scores = scores.masked_fill(hidden, float("-inf"))
    lse = torch.logsumexp(scores, dim=-1)
    # Rows with no visible key have lse = -inf; subtracting 0 instead keeps p = 0
    # (not NaN) there, in the forward and in autograd's backward.
    lse_safe = torch.where(torch.isneginf(lse), torch.zeros_like(lse), lse)
    probs = torch.exp(scores - lse_safe[..., None])
    return torch.matmul(probs.to(v.dtype), v), lse
