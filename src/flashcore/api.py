"""The public compute entry point: :func:`attention`."""

from __future__ import annotations

import torch

from . import dispatch, ops, plans, validate
from .kernels.triton_fwd import INTERPRET
from .reference import attention_reference, default_scale


def attention(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    *,
    causal: bool = False,
    scale: float | None = None,
    return_lse: bool = False,
    backend: str = "auto",
):
    """Fused scaled-dot-product attention, a drop-in for SDPA's forward.

    Args:
        q: (B, Hq, Sq, D) queries, float16 or bfloat16, any strides. A (B, S, H, D)
            tensor passed as ``x.transpose(1, 2)`` is read in place, without a copy.
        k, v: (B, Hkv, Sk, D) keys and values with q's dtype and device.
            ``Hq % Hkv == 0``; query head ``h`` reads KV head ``h // (Hq // Hkv)``
            (GQA/MQA, no copy of K or V).
        causal: mask bottom-right aligned as FlashAttention does: query ``i`` sees key
            ``j`` iff ``j <= i + (Sk - Sq)``. This differs from SDPA's ``is_causal``
            (top-left aligned) when ``Sq != Sk``. A query row that sees no key gets
            output 0 and LSE ``-inf``, never NaN.
        scale: softmax scale, finite and > 0. Defaults to ``1/sqrt(D)``.
        return_lse: also return the fp32 natural-log log-sum-exp of the scaled scores,
            shape (B, Hq, Sq).
        backend: ``"auto"`` (fastest correct path; on CPU the reference unless
            ``TRITON_INTERPRET=1``), ``"triton"`` (the portable fused kernel),
            ``"hopper"`` (sm_90 Triton TMA kernel; power-of-two D <= 128, 16-byte
            aligned strides), ``"gluon"`` (sm_90 Gluon kernel with the FA3 schedule;
            D a multiple of 8 from 16 to 256, run on its D=32, 64, 128 or 256 build with
            the columns past D zero-filled; same alignment), ``"cute"`` (sm_90 CuTe DSL kernel for small grids:
            each query block's keys split across a 2-CTA cluster or two warpgroups; longer
            rows stream through a ring of K/V slots; needs ``flashcore[hopper]``, D 64 or
            128), or ``"reference"`` (pure PyTorch, any device,
            fp16/bf16/fp32/fp64, autograd).

    Returns:
        ``out`` of q's shape and dtype (accumulated in fp32), or ``(out, lse)``.
        ``Sq == 0`` or ``B == 0`` returns empty results without a launch; ``Sk == 0``
        returns zeros with LSE ``-inf``.

    Raises:
        TypeError, ValueError: for bad inputs, before any kernel runs.
        NotImplementedError: for the fused backends when grad mode is on and an input
            requires grad (backward is not implemented yet).
    """
    plan_key = plans.key(q, k, v, causal, scale, return_lse, backend)
    run = plans.get(plan_key)
    if run is None:
        concrete, scale = _validate(q, k, v, causal, scale, return_lse, backend)
        if concrete == "reference":
            return attention_reference(q, k, v, causal=causal, scale=scale, return_lse=return_lse)
        if torch.compiler.is_compiling():
            out, lse = torch.ops.flashcore.attention_fwd(q, k, v, causal, scale, concrete)
            return (out, lse) if return_lse else out
        if ops.is_empty(q, k):
            out, lse = ops.empty_result(q, k.shape[2])
            return (out, lse) if return_lse else out
        run = ops.prepare_forward(q, k, v, causal, scale, concrete, store_lse=return_lse)
        plans.put(plan_key, run)
    out, lse = run(q, k, v)
    return (out, lse) if return_lse else out


def _validate(q, k, v, causal, scale, return_lse, backend) -> tuple[str, float]:
    """Every input check; returns (concrete backend, scale)."""
    validate.check_call(q, k, v, causal, scale, return_lse, backend)
    concrete = dispatch.resolve_backend(backend, q.device)
    validate.check_for_backend(q, k, v, concrete, INTERPRET)
    supports = getattr(dispatch.KERNELS.get(concrete), "supports", None)
    if supports is not None:
        validate.check_kernel_supports(concrete, supports(q, k, v, dispatch.arch_of(q.device)))
    return concrete, default_scale(q.shape[3]) if scale is None else float(scale)
