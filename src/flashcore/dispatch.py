"""Pick the (backend, config) for a call.

``auto`` resolves by device: CUDA tensors go to the fastest correct kernel; CPU
tensors go to the reference unless Triton's interpreter is on. Configs come from
the tuned table for the GPU's arch (data, ``tuned/sm<arch>.json``) when it has the
key, and from each kernel's heuristic otherwise. Everything here is cached: the
hot path does no I/O after the first call.
"""

from __future__ import annotations

import functools
import json
from importlib import resources

import torch

from .kernels import hopper_fwd, triton_fwd

# Fused backends and their kernel modules (each: Config, heuristic_config, forward).
KERNELS = {"triton": triton_fwd, "hopper": hopper_fwd}


def resolve_backend(backend: str, device: torch.device) -> str:
    """``auto`` by device: a fused kernel on CUDA (or under the interpreter), else the reference.

    Which fused kernel runs is decided per call by :func:`kernel_for`.
    """
    if backend != "auto":
        return backend
    if device.type == "cuda" or (device.type == "cpu" and triton_fwd.INTERPRET):
        return "auto"
    return "reference"


def kernel_for(backend: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> str:
    """The fused kernel for a call: ``auto`` takes the Hopper path wherever it applies."""
    if backend != "auto":
        return backend
    batch, heads_q, seq_q, _ = q.shape
    if triton_fwd.small_grid(seq_q, batch * heads_q):
        # Under one wave the portable kernel's 64-row tiles win: seed shape 7.6 vs 8.0 us
        # (benchmarks/results/2026-11-22-h100-seed-standard.json, graph mode).
        return "triton"
    if q.device.type == "cuda" and hopper_fwd.supports(q, k, v, arch_of(q.device)) is None:
        return "hopper"
    return "triton"


@functools.lru_cache(maxsize=None)
def device_arch(index: int | None) -> int:
    """Compute capability as an int (90 for sm_90). The interpreter counts as 80."""
    if index is None:
        return 80
    major, minor = torch.cuda.get_device_capability(index)
    return major * 10 + minor


def arch_of(device: torch.device) -> int:
    if device.type != "cuda":
        return 80
    return device_arch(device.index if device.index is not None else torch.cuda.current_device())


def size_bucket(seq_q: int, seq_k: int) -> str:
    """Coarse size key for tuned tables: powers of two of max(Sq, Sk), clamped to [64, 16384]."""
    s = max(seq_q, seq_k, 1)
    bucket = 64
    while bucket < s and bucket < 16384:
        bucket *= 2
    return str(bucket)


def table_key(dtype: torch.dtype, head_dim: int, causal: bool, seq_q: int, seq_k: int, family: str = "triton") -> str:
    """Tuned-table key, e.g. "bf16/d128/causal/s8192"; other families prefix "hopper:"."""
    name = {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype, str(dtype))
    key = f"{name}/d{head_dim}/{'causal' if causal else 'full'}/s{size_bucket(seq_q, seq_k)}"
    return key if family == "triton" else f"{family}:{key}"


@functools.lru_cache(maxsize=None)
def tuned_table(arch: int) -> dict:
    """The tuned table for one arch, or {} when none ships. Read once per arch."""
    try:
        text = resources.files("flashcore.tuned").joinpath(f"sm{arch}.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    return json.loads(text).get("entries", {})


@functools.lru_cache(maxsize=4096)
def kernel_config(
    family: str, arch: int, dtype: torch.dtype, head_dim: int, causal: bool, seq_q: int, seq_k: int,
    batch_heads: int = 1 << 16,
):
    """Tuned config for the key when the table has it, else the family's heuristic."""
    module = KERNELS[family]
    entry = tuned_table(arch).get(table_key(dtype, head_dim, causal, seq_q, seq_k, family))
    if entry is not None:
        return module.Config(**entry["config"])
    return module.heuristic_config(arch, head_dim, dtype.itemsize, causal, seq_q, seq_k, batch_heads)


def triton_config(arch, dtype, head_dim, causal, seq_q, seq_k, batch_heads: int = 1 << 16):
    return kernel_config("triton", arch, dtype, head_dim, causal, seq_q, seq_k, batch_heads)
