"""Per-signature plans: the eager fast path of :func:`flashcore.attention`.

A steady workload calls attention with the same shapes, strides, dtypes and flags
again and again. The first call of a signature is validated and dispatched in full;
the launch it settles on (kernel family, config, grid, integer arguments, compiled
binary) is kept under a key of everything that validation and dispatch read. A later
call with the same key allocates its output and launches, nothing more: on the H100
host that is the difference between losing and winning eager latency at small shapes
(docs/performance.md, "v7").

What the key holds, and why each part is needed:

* exact types (``torch.Tensor``, ``bool``, ``float``/None, ``str``): ``causal=1``
  equals ``True`` as a dict key but must still raise ``TypeError``;
* shapes, strides, dtypes and devices of q/k/v, and whether all three are 16-byte
  aligned: every check and every dispatch decision reads only these;
* the current CUDA device (launches go to it), whether tuned tables are on and
  whether launches use PDL.

Calls that must not take a plan get no key: under ``torch.compile``, on the CPU
(except under Triton's interpreter, where the tests exercise this path),
with grad-requiring inputs in grad mode (they raise), or with tensor subclasses.
"""

from __future__ import annotations

import torch

from . import dispatch
from .kernels.launch import pdl_on
from .kernels.triton_fwd import INTERPRET

MAX_PLANS = 1024
_PLANS: dict = {}


def key(q, k, v, causal, scale, return_lse, backend):
    """The plan key of a call, or None when the call must take the full path."""
    if type(q) is not torch.Tensor or type(k) is not torch.Tensor or type(v) is not torch.Tensor:
        return None
    if not (causal is True or causal is False) or not (return_lse is True or return_lse is False):
        return None
    if (scale is not None and type(scale) is not float) or type(backend) is not str:
        return None
    if not (q.is_cuda or INTERPRET) or torch.compiler.is_compiling():
        return None
    if torch.is_grad_enabled() and (q.requires_grad or k.requires_grad or v.requires_grad):
        return None
    if (q.data_ptr() | k.data_ptr() | v.data_ptr()) & 15:
        return None
    device = q.get_device()  # -1 on the CPU
    current = torch.cuda.current_device() if device >= 0 else -1
    return (q.shape, k.shape, v.shape, q.stride(), k.stride(), v.stride(), q.dtype, k.dtype, v.dtype,
            device, k.get_device(), v.get_device(), current, causal, scale, return_lse, backend,
            dispatch.tuned_tables_on(), pdl_on())


def get(plan_key):
    return None if plan_key is None else _PLANS.get(plan_key)


def put(plan_key, run) -> None:
    """Keep ``run(q, k, v) -> (out, lse)`` for later calls with this key (None: keep nothing)."""
    if plan_key is None:
        return
    if len(_PLANS) >= MAX_PLANS:
        _PLANS.clear()  # a workload with ever-new shapes: bounded, not a leak
    _PLANS[plan_key] = run


def clear() -> None:
    """Forget every plan (tests; after changing what dispatch would pick)."""
    _PLANS.clear()
