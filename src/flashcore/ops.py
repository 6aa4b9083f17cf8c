"""The fused forward as a ``torch.library`` custom op, with a fake implementation.

``torch.compile`` traces ``flashcore::attention_fwd`` as one opaque node (no graph
break). Eager calls skip the custom-op dispatcher: they run what
:func:`prepare_forward` returns, and keep it as a plan (``flashcore.plans``).
"""

from __future__ import annotations

import torch

from . import dispatch


def empty_result(q: torch.Tensor, seq_k: int):
    """Sq=0 or B=0: nothing to launch. Sk=0: no keys, so out = 0 and lse = -inf."""
    batch, heads_q, seq_q, _ = q.shape
    lse = torch.full((batch, heads_q, seq_q), float("-inf"), device=q.device, dtype=torch.float32)
    out = torch.zeros_like(q) if seq_k == 0 else torch.empty_like(q)
    return out, lse


def is_empty(q: torch.Tensor, k: torch.Tensor) -> bool:
    return q.numel() == 0 or k.shape[2] == 0


def prepare_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float,
                    backend: str = "auto", store_lse: bool = True):
    """Dispatch validated, non-empty inputs once: ``run(q, k, v) -> (out, lse)`` for them and
    for later tensors of the same shapes, strides, dtypes and alignment (a plan's).
    Without ``store_lse``, kernels that can skip the LSE return ``lse=None``."""
    family = dispatch.kernel_for(backend, q, k, v, causal)
    batch, heads_q, seq_q, head_dim = q.shape
    config = dispatch.kernel_config(
        family, dispatch.arch_of(q.device), q.dtype, head_dim, causal, seq_q, k.shape[2], batch * heads_q,
        heads_q // k.shape[1],
    )
    module = dispatch.KERNELS[family]
    prepare = getattr(module, "prepare", None)
    if prepare is not None:
        return prepare(q, k, v, causal, scale, config, store_lse)
    return lambda q, k, v: module.forward(q, k, v, causal, scale, config)


def fused_forward(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float,
                  backend: str = "auto"):
    """Run a fused kernel ("auto" or a name in dispatch.KERNELS) on validated inputs. Returns (out, lse)."""
    if is_empty(q, k):
        return empty_result(q, k.shape[2])
    return prepare_forward(q, k, v, causal, scale, backend)(q, k, v)


@torch.library.custom_op("flashcore::attention_fwd", mutates_args=())
def attention_fwd(
    q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool, scale: float, backend: str = "auto"
) -> tuple[torch.Tensor, torch.Tensor]:
    return fused_forward(q, k, v, causal, scale, backend)


@attention_fwd.register_fake
def _attention_fwd_fake(q, k, v, causal, scale, backend="auto"):
    batch, heads_q, seq_q, _ = q.shape
    return torch.empty_like(q), q.new_empty((batch, heads_q, seq_q), dtype=torch.float32)
