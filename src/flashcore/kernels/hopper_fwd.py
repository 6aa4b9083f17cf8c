"""Hopper (sm_90) Triton forward: TMA tensor descriptors, optional warp specialisation.

Same algorithm and masking as ``triton_fwd`` (it reuses its softmax, bounds and
finish helpers); what changes is how tiles move: every Q/K/V/O tile is a TMA copy
through a rank-4 descriptor over the caller's (B, H, S, D) strides, so the
sequence tail is zero-filled (loads) or clipped (stores) by the copy engine per
(batch, head), and loads need no masks. The KV loop can be warp-specialised
(producer/consumer partitions) through ``tl.range(..., warp_specialize=True)``.

Applies when D is a power of two in [16, 128], the last stride is 1 and the other
strides and base pointers are 16-byte aligned; ``supports`` says why not otherwise.
"""

from __future__ import annotations

import functools
from dataclasses import asdict, dataclass

import torch
import triton
import triton.language as tl
from triton.tools.tensor_descriptor import TensorDescriptor

from ..reference import LOG2E
from .launch import CachedLauncher, tma_layout_problem
from .triton_fwd import (INTERPRET, _finish, _kv_bounds, _mask_scores, _narrow, _softmax_step, small_grid,
                         upcast_for_interpreter)


# ----------------------------------------------------------------------------------
# 1. Device kernel
# ----------------------------------------------------------------------------------
@triton.jit
def _hopper_kv_loop(
    acc, l_i, m_i, q, desc_k, desc_v, off_b, off_hkv,
    lo, hi, offs_m, offs_n, seq_k, causal_offset, qk_scale,
    HEAD_DIM: tl.constexpr, BLOCK_N: tl.constexpr, MASKED: tl.constexpr, CAUSAL: tl.constexpr,
    WARP_SPECIALIZE: tl.constexpr, UPCAST: tl.constexpr,
):
    for start_n in tl.range(lo, hi, BLOCK_N, warp_specialize=WARP_SPECIALIZE):
        k = desc_k.load([off_b, off_hkv, start_n, 0]).reshape(BLOCK_N, HEAD_DIM)
        if UPCAST:
            k = k.to(tl.float32)
        qk = tl.dot(q, tl.trans(k))
        if MASKED:
            qk = _mask_scores(qk, start_n, offs_n, offs_m, seq_k, causal_offset, CAUSAL)
        p, alpha, m_new = _softmax_step(qk, m_i, qk_scale, MASKED)
        l_i = l_i * alpha + tl.sum(p, 1)
        acc = acc * alpha[:, None]
        v = desc_v.load([off_b, off_hkv, start_n, 0]).reshape(BLOCK_N, HEAD_DIM)
        p = _narrow(p, v.dtype, UPCAST)
        if UPCAST:
            p = p.to(tl.float32)
            v = v.to(tl.float32)
        acc = tl.dot(p, v, acc)
        m_i = m_new
    return acc, l_i, m_i


@triton.jit
def _hopper_fwd_kernel(
    desc_q, desc_k, desc_v, desc_o, LSE,
    qk_scale, heads_q, group, seq_q, seq_k,
    HEAD_DIM: tl.constexpr, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, WARP_SPECIALIZE: tl.constexpr, UPCAST: tl.constexpr,
):
    pid_m = tl.program_id(0)
    if CAUSAL:
        pid_m = tl.num_programs(0) - 1 - pid_m
    pid_bh = tl.program_id(1)
    off_b = pid_bh // heads_q
    off_h = pid_bh % heads_q
    off_hkv = off_h // group
    m0 = pid_m * BLOCK_M
    offs_m = m0 + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)

    q = desc_q.load([off_b, off_h, m0, 0]).reshape(BLOCK_M, HEAD_DIM)
    if UPCAST:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, HEAD_DIM], dtype=tl.float32)

    causal_offset = seq_k - seq_q
    full, hi = _kv_bounds(pid_m, causal_offset, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    acc, l_i, m_i = _hopper_kv_loop(
        acc, l_i, m_i, q, desc_k, desc_v, off_b, off_hkv, 0, full, offs_m, offs_n, seq_k,
        causal_offset, qk_scale, HEAD_DIM, BLOCK_N, False, CAUSAL, WARP_SPECIALIZE, UPCAST,
    )
    acc, l_i, m_i = _hopper_kv_loop(
        acc, l_i, m_i, q, desc_k, desc_v, off_b, off_hkv, full, hi, offs_m, offs_n, seq_k,
        causal_offset, qk_scale, HEAD_DIM, BLOCK_N, True, CAUSAL, WARP_SPECIALIZE, UPCAST,
    )
    out, lse = _finish(acc, l_i, m_i)
    desc_o.store([off_b, off_h, m0, 0], _narrow(out, desc_o.dtype, UPCAST).reshape(1, 1, BLOCK_M, HEAD_DIM))
    tl.store(LSE + pid_bh.to(tl.int64) * seq_q + offs_m, lse, mask=offs_m < seq_q)


# ----------------------------------------------------------------------------------
# 2. Config, search space, heuristic
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    warp_specialize: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


SEARCH_SPACE = {
    "block_m": (64, 128),
    "block_n": (32, 64, 128),
    "num_warps": (4, 8),
    "num_stages": (2, 3, 4),
    "warp_specialize": (False, True),
}


def constraints(config: Config, head_dim: int) -> str | None:
    """Known-bad combinations, pruned before anything compiles."""
    if config.warp_specialize and config.num_warps < 8:
        return "warp_specialize with 4 warps fails Triton 3.6's NVGPUWarpSpecialization pass on sm_90"
    if config.warp_specialize and config.num_stages == 3 and config.block_n == 64:
        return "warp_specialize with 3 stages and BLOCK_N=64 produced NaN on the H100 (Triton 3.6)"
    return None


@functools.lru_cache(maxsize=4096)
def heuristic_config(arch: int, head_dim: int, dtype_bytes: int, causal: bool, seq_q: int, seq_k: int,
                     batch_heads: int = 1 << 16) -> Config:
    """Fastest correct config of the 2026-11-22 H100 sweep (benchmarks/results/
    2026-11-22-h100-hopper-sweep): 128x128 tiles, 3 stages; 8 warps at D=128
    (507 TF full / 482 causal at S=8k), 4 warps at D<=64 (432 / 413). Warp
    specialisation was never faster in Triton 3.6 on sm_90."""
    if small_grid(seq_q, batch_heads):
        return Config(block_m=64, block_n=64, num_warps=4, num_stages=3)
    return Config(block_m=128, block_n=128, num_warps=8 if head_dim >= 128 else 4, num_stages=3)


# ----------------------------------------------------------------------------------
# 3. Launcher
# ----------------------------------------------------------------------------------
def supports(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, arch: int) -> str | None:
    """None when the TMA path can take these tensors, else why not."""
    head_dim = q.shape[3]
    if arch < 90 and not INTERPRET:
        return f"needs sm_90 (TMA), got sm_{arch}"
    if head_dim not in (16, 32, 64, 128):
        return f"head dim {head_dim} is not a power of two in [16, 128]"
    return tma_layout_problem(q, k, v)


_launch = CachedLauncher(_hopper_fwd_kernel)


def _desc(t: torch.Tensor, rows: int) -> TensorDescriptor:
    return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1, rows, t.shape[3]])


def forward(q, k, v, causal: bool, scale: float, config: Config, out=None, lse=None):
    """Launch on validated inputs that ``supports`` accepted; Sq, Sk and B*H > 0."""
    batch, heads_q, seq_q, head_dim = q.shape
    if out is None:
        out = torch.empty_like(q)
    if lse is None:
        lse = torch.empty((batch, heads_q, seq_q), device=q.device, dtype=torch.float32)
    grid = (triton.cdiv(seq_q, config.block_m), batch * heads_q)
    args = (
        _desc(q, config.block_m), _desc(k, config.block_n), _desc(v, config.block_n),
        _desc(out, config.block_m), lse,
        scale * LOG2E, heads_q, heads_q // k.shape[1], seq_q, k.shape[2],
    )
    constexprs = dict(
        HEAD_DIM=head_dim, BLOCK_M=config.block_m, BLOCK_N=config.block_n, CAUSAL=causal,
        WARP_SPECIALIZE=config.warp_specialize, UPCAST=upcast_for_interpreter(q.dtype),
    )
    _launch(grid, args, constexprs, config.num_warps, config.num_stages)
    return out, lse
