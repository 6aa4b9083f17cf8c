"""The fused forward as a ``torch.library`` custom op, with a fake implementation.

``torch.compile`` traces ``flashcore::attention_fwd`` as one opaque node (no graph
break). Eager calls skip the custom-op dispatcher and call :func:`fused_forward`
directly: same function, less host overhead.
"""

from __future__ import annotations

import torch

from . import dispatch


def _empty_result(q: torch.Tensor, seq_k: int):
    batch, heads_q, seq_q, _ = q.shape
    lse = torch.full((batch, heads_q, seq_q), float("-inf"), device=q.device, dtype=torch.float32)
    out = torch.zeros_like(q) if seq_k == 0 else torch.empty_like(q)
    return out, lse


def fused_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float,
                  backend: str = "auto"):
    """Run a fused kernel ("auto" or a name in dispatch.KERNELS) on validated inputs. Returns (out, lse)."""
    seq_k = k.shape[2]
    if q.numel() == 0 or seq_k == 0:
        # Sq=0 or B=0: nothing to launch. Sk=0: no keys, so out = 0 and lse = -inf.
        return _empty_result(q, seq_k)
    family = dispatch.kernel_for(backend, q, k, v)
    batch, heads_q, seq_q, head_dim = q.shape
    config = dispatch.kernel_config(
        family, dispatch.arch_of(q.device), q.dtype, head_dim, causal, seq_q, seq_k, batch * heads_q
    )
    return dispatch.KERNELS[family].forward(q, k, v, causal, scale, config)


@torch.library.custom_op("flashcore::attention_fwd", mutates_args=())
def attention_fwd(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float, backend: str = "auto"
) -> tuple[torch.Tensor, torch.Tensor]:
    return fused_forward(q, k, v, causal, scale, backend)


@attention_fwd.register_fake
def _attention_fwd_fake(q, k, v, causal, scale, backend="auto"):
    batch, heads_q, seq_q, _ = q.shape
    return torch.empty_like(q), q.new_empty((batch, heads_q, seq_q), dtype=torch.float32)
