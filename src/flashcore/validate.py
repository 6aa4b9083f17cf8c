"""Input checks for :func:`flashcore.attention`.

Each check is a small named function that raises ``TypeError`` or ``ValueError``
before any kernel runs. Messages name the argument, what was expected, what was
given, and how to fix it.
"""

from __future__ import annotations

import math

import torch

PREFIX = "flashcore.attention"
KERNEL_DTYPES = (torch.float16, torch.bfloat16)
REFERENCE_DTYPES = (torch.float16, torch.bfloat16, torch.float32, torch.float64)
BACKENDS = ("auto", "triton", "hopper", "gluon", "cute", "reference")
MIN_HEAD_DIM, MAX_HEAD_DIM, HEAD_DIM_MULTIPLE = 16, 256, 8


def _fail(exc, message: str):
    raise exc(f"{PREFIX}: {message}")


def check_tensors(q, k, v) -> None:
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor):
            _fail(TypeError, f"expected {name} to be a torch.Tensor, got {type(t).__name__}")
        if t.dim() != 4:
            _fail(
                ValueError,
                f"expected {name} to be 4-D (batch, heads, seq, head_dim), got {t.dim()}-D "
                f"shape {tuple(t.shape)}; for (batch, seq, heads, head_dim) tensors pass "
                f"{name}.transpose(1, 2)",
            )


def check_shapes(q, k, v) -> None:
    if k.shape != v.shape:
        _fail(ValueError, f"expected k.shape == v.shape, got k {tuple(k.shape)} and v {tuple(v.shape)}")
    if k.shape[0] != q.shape[0]:
        _fail(ValueError, f"expected k.shape[0] (batch) == q.shape[0] == {q.shape[0]}, got {k.shape[0]}")
    if k.shape[3] != q.shape[3]:
        _fail(
            ValueError,
            f"expected k.shape[3] (head dim) == q.shape[3] == {q.shape[3]}, got {k.shape[3]}",
        )
    heads_q, heads_kv = q.shape[1], k.shape[1]
    if heads_kv == 0 or heads_q % heads_kv != 0:
        _fail(
            ValueError,
            f"expected q.shape[1] (query heads, {heads_q}) to be a multiple of k.shape[1] "
            f"(key/value heads, {heads_kv}) for GQA/MQA; got a ratio of {heads_q}/{heads_kv}",
        )


def check_dtypes(q, k, v, backend: str) -> None:
    if not (q.dtype == k.dtype == v.dtype):
        _fail(
            TypeError,
            f"expected q, k and v to share one dtype, got q {q.dtype}, k {k.dtype}, v {v.dtype}; "
            f"cast them, e.g. k.to(q.dtype)",
        )
    allowed = REFERENCE_DTYPES if backend == "reference" else KERNEL_DTYPES
    if q.dtype not in allowed:
        hint = "cast with .to(torch.bfloat16) or .to(torch.float16)"
        if backend != "reference" and q.dtype in REFERENCE_DTYPES:
            hint += ', or use backend="reference" for fp32/fp64'
        names = ", ".join(str(d) for d in allowed)
        _fail(TypeError, f"expected q/k/v dtype in ({names}) for backend={backend!r}, got {q.dtype}; {hint}")


def check_devices(q, k, v) -> None:
    if not (q.device == k.device == v.device):
        _fail(
            ValueError,
            f"expected q, k and v on one device, got q on {q.device}, k on {k.device}, v on {v.device}; "
            f"move them with .to(q.device)",
        )


def check_head_dim(head_dim: int, backend: str) -> None:
    if backend == "reference":
        if head_dim < 1:
            _fail(ValueError, f"expected q.shape[3] (head dim) >= 1, got {head_dim}")
        return
    ok = MIN_HEAD_DIM <= head_dim <= MAX_HEAD_DIM and head_dim % HEAD_DIM_MULTIPLE == 0
    if not ok:
        _fail(
            ValueError,
            f"expected q.shape[3] (head dim) to be a multiple of {HEAD_DIM_MULTIPLE} from "
            f"{MIN_HEAD_DIM} to {MAX_HEAD_DIM}, got {head_dim}; pad the head dim or use backend=\"reference\"",
        )


def check_scale(scale) -> None:
    if scale is None:
        return
    if isinstance(scale, bool) or not isinstance(scale, (int, float)):
        _fail(TypeError, f"expected scale to be a float or None, got {type(scale).__name__}")
    if not math.isfinite(scale) or scale <= 0:
        _fail(ValueError, f"expected scale to be finite and > 0, got {scale}; leave it None for 1/sqrt(head_dim)")


def check_backend(backend) -> None:
    if backend not in BACKENDS:
        _fail(ValueError, f"expected backend in {BACKENDS}, got {backend!r}")


def check_flags(causal, return_lse) -> None:
    for name, value in (("causal", causal), ("return_lse", return_lse)):
        if not isinstance(value, bool):
            _fail(TypeError, f"expected {name} to be a bool, got {type(value).__name__}")


# Backends whose kernels Triton's CPU interpreter runs ("auto" resolves to the portable one
# there); Gluon and CuTe DSL kernels have no interpreter.
INTERPRETED = ("auto", "triton", "hopper")


def check_kernel_device(device: torch.device, backend: str, interpret: bool) -> None:
    if backend == "reference":
        return
    if device.type != "cuda" and not (interpret and backend in INTERPRETED):
        hint = (" or set TRITON_INTERPRET=1 before importing flashcore to run the kernel in Triton's CPU "
                "interpreter" if backend in INTERPRETED else " (this kernel has no CPU interpreter)")
        _fail(ValueError, f'backend="{backend}" needs CUDA tensors, got tensors on {device}; move them with '
                          f'.cuda() or use backend="reference"{hint}')
    if device.type not in ("cuda", "cpu"):
        _fail(ValueError, f'backend="{backend}" runs on CUDA (or CPU under TRITON_INTERPRET=1), got {device}')


def check_kernel_supports(backend: str, reason: str | None) -> None:
    """``reason`` is the kernel module's ``supports(...)`` for the tensors of an explicit backend."""
    if reason is not None:
        _fail(ValueError, f'backend="{backend}" cannot take these inputs: {reason}; use backend="auto" or "triton"')


def check_grad(q, k, v, backend: str) -> None:
    if backend == "reference" or not torch.is_grad_enabled():
        return
    if q.requires_grad or k.requires_grad or v.requires_grad:
        raise NotImplementedError(
            f"{PREFIX}: the backward pass of the fused kernels is not implemented yet; "
            f'wrap the call in torch.no_grad() for inference, or use backend="reference" for autograd'
        )


def check_call(q, k, v, causal, scale, return_lse, backend) -> None:
    """Checks that need no backend: argument types, ranks and shapes."""
    check_backend(backend)
    check_flags(causal, return_lse)
    check_scale(scale)
    check_tensors(q, k, v)
    check_shapes(q, k, v)


def check_for_backend(q, k, v, backend: str, interpret: bool) -> None:
    """Checks for the concrete backend that dispatch resolved ``"auto"`` to."""
    check_devices(q, k, v)
    check_dtypes(q, k, v, backend)
    check_head_dim(q.shape[3], backend)
    check_kernel_device(q.device, backend, interpret)
    check_grad(q, k, v, backend)
