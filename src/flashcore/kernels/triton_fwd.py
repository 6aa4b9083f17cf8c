"""Portable Triton FlashAttention forward (sm_80, sm_86, sm_89, sm_90).

Layers, top to bottom: the device kernel; the config (frozen dataclass), its
search space and the heuristic that picks it; the launcher. The custom op lives in
``flashcore.ops`` and the public function in ``flashcore.api``.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import asdict, dataclass

import torch
import triton
import triton.language as tl
from triton.language.extra.cuda import gdc_wait

from ..reference import LOG2E
from .launch import CachedLauncher, device_arch, lse_scratch, pdl_on, split_buffers

INTERPRET = bool(triton.knobs.runtime.interpret)
LN2_CONST: tl.constexpr = tl.constexpr(math.log(2.0))


# ----------------------------------------------------------------------------------
# 1. Device kernel
# ----------------------------------------------------------------------------------
@triton.jit
def _load(ptrs, row_mask, col_mask, CHECK_ROWS: tl.constexpr, CHECK_COLS: tl.constexpr):
    if CHECK_ROWS and CHECK_COLS:
        return tl.load(ptrs, mask=row_mask[:, None] & col_mask[None, :], other=0.0)
    elif CHECK_ROWS:
        return tl.load(ptrs, mask=row_mask[:, None], other=0.0)
    elif CHECK_COLS:
        return tl.load(ptrs, mask=col_mask[None, :], other=0.0)
    else:
        return tl.load(ptrs)


@triton.jit
def _mask_scores(qk, col0, offs_n, offs_m, seq_k, causal_offset, CAUSAL: tl.constexpr):
    """-inf for key col0 + offs_n past Sk or, causal, in row offs_m's future.

    Causal needs no Sk compare: a row r < Sq sees keys up to r + Sk - Sq <= Sk - 1 (rows
    past Sq see the masked loads' zeros and are not stored). That shortens the masked loop
    by 4-7% and causal runs 0.3-1.4% faster on the H100. FA3's split compare, which the
    Gluon kernel uses, was 1-3% faster here, but it moved ptxas's register choices on
    sm_80/sm_89 into two spills (sm_89 D=128 64x32, sm_80 D=24 fp16 split-KV) that this
    form does not have. benchmarks/results/2026-11-23-h100-causal-mask/triton_loops.txt."""
    if CAUSAL:
        visible = (col0 + offs_n)[None, :] <= offs_m[:, None] + causal_offset
    else:
        visible = (col0 + offs_n)[None, :] < seq_k
    return tl.where(visible, qk, float("-inf"))


@triton.jit
def _softmax_step(qk, m_i, qk_scale, MASKED: tl.constexpr):
    """One online-softmax step in the log2 domain: (p, rescale factor, new row max)."""
    m_new = tl.maximum(m_i, tl.max(qk, 1) * qk_scale)
    if MASKED:
        # A row that has seen no visible key yet keeps m = -inf; subtracting 0
        # instead keeps p = 0 rather than exp2(-inf + inf) = NaN.
        m_sub = tl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_sub = m_new
    p = tl.math.exp2(qk * qk_scale - m_sub[:, None])
    alpha = tl.math.exp2(m_i - m_sub)
    return p, alpha, m_new


@triton.jit
def _kv_bounds(pid_m, causal_offset, seq_k, BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr, CAUSAL: tl.constexpr):
    """KV range of one query block: [0, full) needs no mask, [full, hi) does."""
    tiles_end = (seq_k // BLOCK_N) * BLOCK_N
    if CAUSAL:
        # Keys [0, m0 + offset] are visible to every row of this block: no mask there.
        # Keys past the last row's horizon are skipped, not masked.
        m0 = pid_m * BLOCK_M
        hi = tl.maximum(tl.minimum(seq_k, m0 + BLOCK_M + causal_offset), 0)
        full = tl.minimum((tl.maximum(m0 + causal_offset + 1, 0) // BLOCK_N) * BLOCK_N, tiles_end)
    else:
        hi = seq_k
        full = tiles_end
    return full, hi


@triton.jit
def _split_bounds(full, hi, split, BLOCK_N: tl.constexpr, SPLITS: tl.constexpr):
    """This split's share of [0, hi), whole KV tiles each: [lo, mid) unmasked, [mid, end) masked."""
    per_split = tl.cdiv(tl.cdiv(hi, BLOCK_N), SPLITS) * BLOCK_N
    lo = tl.minimum(split * per_split, hi)
    end = tl.minimum(lo + per_split, hi)
    mid = tl.minimum(tl.maximum(full, lo), end)
    return lo, mid, end


@triton.jit
def _finish(acc, l_i, m_i):
    """Normalise; rows that saw no key (causal with Sq > Sk) end with l = 0: out 0, lse -inf."""
    empty = l_i == 0.0
    l_safe = tl.where(empty, 1.0, l_i)
    out = acc / l_safe[:, None]
    lse = tl.where(empty, float("-inf"), (m_i + tl.math.log2(l_safe)) * LN2_CONST)
    return out, lse


@triton.jit
def _narrow(x, dtype: tl.constexpr, UPCAST: tl.constexpr):
    """x in ``dtype``, rounded to nearest even. Triton 3.6's interpreter truncates fp32 to bf16
    instead (up to 1 ulp off where the GPU's cvt.rn is at most half): under it (UPCAST, bf16
    only) the fp32 bits are rounded first, so that the truncation is exact. The GPU build
    never takes this branch."""
    if UPCAST:
        bits = x.to(tl.uint32, bitcast=True)
        bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
        x = tl.where(x != x, x, bits.to(tl.float32, bitcast=True))
    return x.to(dtype)


@triton.jit
def _kv_loop(
    acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn,
    lo, hi, offs_m, offs_n, mask_d, seq_k, causal_offset, qk_scale,
    BLOCK_N: tl.constexpr, MASKED: tl.constexpr, CAUSAL: tl.constexpr,
    PAD_D: tl.constexpr, UPCAST: tl.constexpr,
):
    k_ptrs += lo * stride_kn
    v_ptrs += lo * stride_vn
    for start_n in tl.range(lo, hi, BLOCK_N):
        cols = start_n + offs_n
        k = _load(k_ptrs, cols < seq_k, mask_d, MASKED, PAD_D)
        if UPCAST:
            k = k.to(tl.float32)
        qk = tl.dot(q, tl.trans(k))
        if MASKED:
            qk = _mask_scores(qk, start_n, offs_n, offs_m, seq_k, causal_offset, CAUSAL)
        p, alpha, m_new = _softmax_step(qk, m_i, qk_scale, MASKED)
        # The PV product takes p rounded to the input dtype (as on the tensor cores, also
        # when UPCAST keeps fp32); the row sum takes the same rounded p, so the output
        # stays a convex combination of V rows. Summing unrounded p left a bias of up to
        # bf16's 2^-8 when few keys are visible (all-equal V came out 0.6% low).
        p = _narrow(p, v_ptrs.dtype.element_ty, UPCAST)
        l_i = l_i * alpha + tl.sum(p.to(tl.float32), 1)
        acc = acc * alpha[:, None]
        v = _load(v_ptrs, cols < seq_k, mask_d, MASKED, PAD_D)
        if UPCAST:
            p = p.to(tl.float32)
            v = v.to(tl.float32)
        acc = tl.dot(p, v, acc)
        m_i = m_new
        k_ptrs += BLOCK_N * stride_kn
        v_ptrs += BLOCK_N * stride_vn
    return acc, l_i, m_i


@triton.jit
def _combine_splits(out, lse, WS_O, WS_L, TICKETS, tile, split, base_rows, split_stride, mask_m, offs_d,
                    BLOCK_M: tl.constexpr, BLOCK_D: tl.constexpr, SPLITS: tl.constexpr, CHUNK: tl.constexpr):
    """Publish this split's (out, lse); the last split of the tile to arrive merges all of them.

    Returns (is_last, merged out, merged lse). The ticket counter is left at 0 for the next launch.
    """
    rows = base_rows + split * split_stride
    tl.store(WS_O + rows[:, None] * BLOCK_D + offs_d[None, :], out, mask=mask_m[:, None])
    tl.store(WS_L + rows, lse, mask=mask_m)
    # Every thread's stores happen before the release of the ticket (acq_rel, gpu scope).
    tl.debug_barrier()
    ticket = tl.atomic_add(TICKETS + tile, 1, sem="acq_rel", scope="gpu")
    is_last = ticket == SPLITS - 1
    merged_out = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)
    merged_lse = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    if is_last:
        # One dependent L2 round trip per split, twice, sat on the launch's tail (decode: 16
        # splits). With CHUNK > 1 (``merge_chunk``) every split's LSE ([BLOCK_M]) comes in
        # one round trip and the partial tiles CHUNK at a time; unrolled over all splits,
        # 8-16 [BLOCK_M, BLOCK_D] fp32 tiles spilled. Loading the LSEs CHUNK at a time too
        # gave back most of the gain (2026-11-25-h100-prefetch-and-decode/9-chunked-both/).
        top = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
        if CHUNK > 1:
            for i in tl.static_range(SPLITS):
                top = tl.maximum(top, tl.load(WS_L + base_rows + i * split_stride, mask=mask_m, other=float("-inf"),
                                              cache_modifier=".cg"))
        else:
            for i in tl.range(0, SPLITS, num_stages=1):
                top = tl.maximum(top, tl.load(WS_L + base_rows + i * split_stride, mask=mask_m, other=float("-inf"),
                                              cache_modifier=".cg"))
        top_safe = tl.where(top == float("-inf"), 0.0, top)
        total = tl.zeros([BLOCK_M], dtype=tl.float32)
        for c in tl.range(0, SPLITS, CHUNK, num_stages=1):
            for u in tl.static_range(CHUNK):
                live = mask_m & (c + u < SPLITS)
                rows = base_rows + (c + u) * split_stride
                w = tl.exp(tl.load(WS_L + rows, mask=live, other=float("-inf"), cache_modifier=".cg") - top_safe)
                part = tl.load(WS_O + rows[:, None] * BLOCK_D + offs_d[None, :], mask=live[:, None], other=0.0,
                               cache_modifier=".cg")
                merged_out += w[:, None] * part
                total += w
        empty = total == 0.0
        merged_out = merged_out / tl.where(empty, 1.0, total)[:, None]
        merged_lse = tl.where(empty, float("-inf"), top_safe + tl.log(tl.where(empty, 1.0, total)))
        tl.atomic_xchg(TICKETS + tile, 0, sem="relaxed", scope="gpu")
    return is_last, merged_out, merged_lse


# ``store_lse`` is a runtime flag, never specialised: one binary serves calls with and
# without return_lse. As a constexpr, ptxas spilled 8-40 B in five portable builds (sm_80/89
# D=24 causal 128x64, sm_89 D=72-120 64-row, sm_90 D=72-128 64x64 4 warps) that compile
# spill-free with the runtime branch (docs/performance.md, v18-v19).
@triton.jit(do_not_specialize=["store_lse"])
def _attn_fwd_kernel(
    Q, K, V, O, LSE, WS_O, WS_L, TICKETS,
    qk_scale,
    stride_qb, stride_qh, stride_qm, stride_qd,
    stride_kb, stride_kh, stride_kn, stride_kd,
    stride_vb, stride_vh, stride_vn, stride_vd,
    stride_ob, stride_oh, stride_om, stride_od,
    heads_q, group, seq_q, seq_k, store_lse,
    HEAD_DIM: tl.constexpr, BLOCK_D: tl.constexpr,
    BLOCK_M: tl.constexpr, BLOCK_N: tl.constexpr,
    CAUSAL: tl.constexpr, UPCAST: tl.constexpr, SPLITS: tl.constexpr,
    PDL: tl.constexpr = False, PACK_GQA: tl.constexpr = False, MERGE_CHUNK: tl.constexpr = 1,
):
    """One query block of one (batch, head) against its keys (a 1/SPLITS share of them).
    PACK_GQA (short queries): the block's rows are every query row of all ``group``
    query heads of one KV head, row r = (head r // Sq, query r % Sq), so each K/V tile
    is read once for the group instead of once per head; program_id(1) then counts
    (batch, KV head) and there is one block per program."""
    if PDL:
        # Programmatic dependent launch (sm_90+): wait for the previous grids before the
        # first global access. No explicit trigger: the next launch is let in as CTAs exit.
        # In the prologue it unbalances grids that share SMs (gluon_fwd._grid_trigger);
        # after the KV loop it made ptxas spill 16-24 B in the 64x64 4-warp causal build.
        gdc_wait()
    pid_m = tl.program_id(0)
    if CAUSAL:
        # Later query blocks see more keys: launch them first so the tail is short.
        pid_m = tl.num_programs(0) - 1 - pid_m
    offs_m = pid_m * BLOCK_M + tl.arange(0, BLOCK_M)
    offs_n = tl.arange(0, BLOCK_N)
    offs_d = tl.arange(0, BLOCK_D)
    mask_d = offs_d < HEAD_DIM
    PAD_D: tl.constexpr = BLOCK_D != HEAD_DIM
    if PACK_GQA:
        heads_kv = heads_q // group
        off_b = (tl.program_id(1) // heads_kv).to(tl.int64)
        off_hkv = tl.program_id(1) % heads_kv
        # Per row, int32: what stays live across the KV loop (int64 offsets there spilled).
        off_h = off_hkv * group + offs_m // seq_q
        offs_m = offs_m % seq_q  # query index per row
        mask_m = off_h < (off_hkv + 1) * group
        q_head = (off_h.to(tl.int64) * stride_qh)[:, None]
        off_hkv = off_hkv.to(tl.int64)
    else:
        off_b = (tl.program_id(1) // heads_q).to(tl.int64)
        off_h = (tl.program_id(1) % heads_q).to(tl.int64)
        off_hkv = off_h // group
        mask_m = offs_m < seq_q
        q_head = off_h * stride_qh
    rows64 = offs_m.to(tl.int64)

    q_ptrs = Q + off_b * stride_qb + q_head + rows64[:, None] * stride_qm + offs_d[None, :] * stride_qd
    k_ptrs = K + off_b * stride_kb + off_hkv * stride_kh + offs_n[:, None] * stride_kn + offs_d[None, :] * stride_kd
    v_ptrs = V + off_b * stride_vb + off_hkv * stride_vh + offs_n[:, None] * stride_vn + offs_d[None, :] * stride_vd

    q = _load(q_ptrs, mask_m, mask_d, True, PAD_D)
    if UPCAST:
        q = q.to(tl.float32)
    m_i = tl.full([BLOCK_M], float("-inf"), dtype=tl.float32)
    l_i = tl.zeros([BLOCK_M], dtype=tl.float32)
    acc = tl.zeros([BLOCK_M, BLOCK_D], dtype=tl.float32)

    causal_offset = seq_k - seq_q
    full, hi = _kv_bounds(pid_m, causal_offset, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    split = tl.program_id(2)
    lo, mid, end = _split_bounds(full, hi, split, BLOCK_N, SPLITS)
    acc, l_i, m_i = _kv_loop(
        acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, lo, mid, offs_m, offs_n, mask_d,
        seq_k, causal_offset, qk_scale, BLOCK_N, False, CAUSAL, PAD_D, UPCAST,
    )
    acc, l_i, m_i = _kv_loop(
        acc, l_i, m_i, q, k_ptrs, v_ptrs, stride_kn, stride_vn, mid, end, offs_m, offs_n, mask_d,
        seq_k, causal_offset, qk_scale, BLOCK_N, True, CAUSAL, PAD_D, UPCAST,
    )

    out, lse = _finish(acc, l_i, m_i)
    # (batch * heads_q + head) * seq_q + query: the row's index into LSE and the split workspace
    lse_rows = (off_b * heads_q + off_h) * seq_q + rows64
    store = True
    if SPLITS > 1:
        # Split-KV: grids under one wave split the keys too; the last split merges.
        split_stride = tl.num_programs(1).to(tl.int64) * (group if PACK_GQA else 1) * seq_q
        tile = tl.program_id(1) * tl.num_programs(0) + pid_m
        store, out, lse = _combine_splits(out, lse, WS_O, WS_L, TICKETS, tile, split, lse_rows, split_stride,
                                          mask_m, offs_d, BLOCK_M, BLOCK_D, SPLITS, MERGE_CHUNK)
    if store:
        if PACK_GQA:
            o_head = (off_h.to(tl.int64) * stride_oh)[:, None]
        else:
            o_head = off_h * stride_oh
        o_ptrs = (O + off_b * stride_ob + o_head + rows64[:, None] * stride_om
                  + offs_d[None, :] * stride_od)
        o_out = _narrow(out, O.dtype.element_ty, UPCAST)
        if PAD_D:
            tl.store(o_ptrs, o_out, mask=mask_m[:, None] & mask_d[None, :])
        else:
            tl.store(o_ptrs, o_out, mask=mask_m[:, None])
        if store_lse:
            tl.store(LSE + lse_rows, lse, mask=mask_m)


# ----------------------------------------------------------------------------------
# 2. Config, search space, heuristic
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    split_kv: int = 1  # CTAs per query tile along the keys; the last one merges (grids under a wave)
    # Short GQA queries: one block holds the rows of every query head of a KV head, which
    # then reads each K/V tile once for the group (``packs``).
    pack_gqa: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


# The tune issue searches this space; the heuristic below is the fallback.
SEARCH_SPACE = {
    "block_m": (16, 32, 64, 128),
    "block_n": (16, 32, 64, 128),
    "num_warps": (2, 4, 8),
    "num_stages": (1, 2, 3, 4),
    "split_kv": (1, 2, 4, 8),
    "pack_gqa": (False, True),
}


def next_pow2(n: int) -> int:
    # triton.next_power_of_2 and triton.cdiv are ConstexprFunctions in Triton 3.6: ~3 us
    # per host call. These run on every launch.
    return 1 << (n - 1).bit_length() if n > 1 else 1


def cdiv(a: int, b: int) -> int:
    return -(-a // b)


def block_d(head_dim: int) -> int:
    return max(16, next_pow2(head_dim))


@functools.lru_cache(maxsize=4096)
def heuristic_config(
    arch: int, head_dim: int, dtype_bytes: int, causal: bool, seq_q: int, seq_k: int, batch_heads: int = 1 << 16,
    group: int = 1,
) -> Config:
    """Pick a config from (arch, D, dtype size, causal, Sq, Sk, B*Hq, Hq/Hkv). Pure and cached.

    Every branch is the fastest spill-free choice we have evidence for; the offline
    compile sweep (``flashcore profile --offline``, logged in docs/performance.md)
    rules out configs that spill or overflow shared memory (99 KB on sm_86/sm_89).
    GQA calls whose query heads of a group fit one block together (Sq * group <=
    PACK_ROWS: decode) pack them (``pack_gqa``): B*Hkv blocks instead of B*Hq, each
    K/V tile read once per group, and the keys split across as many more CTAs.
    """
    bd = block_d(head_dim)
    small_smem = arch in (86, 87, 89)
    if bd <= 128 and small_grid(seq_q, batch_heads):
        # Under one wave of 128-row CTAs: halve the rows to double the CTAs. Seed shape
        # (B=1 H=8 S=512 D=64) on the H100: 13.6 -> 10.8 us (2026-11-22 sweep).
        # sm_80 spills 24-64 B at 64x64/4 warps for D > 64 (profile --offline); 64x32 does not.
        cfg = Config(block_m=64, block_n=64 if arch >= 89 else 32, num_warps=4, num_stages=3)
    elif bd <= 64:
        # 4 warps spill at 128x64 on sm_90 (ptxas: 255 regs + 24-56 B); 8 warps: 128 regs.
        cfg = Config(block_m=128, block_n=64, num_warps=8, num_stages=3)
    elif bd <= 128:
        # sm_90: 128x64/8w/3st, 246 regs, 112 KB. sm_80/sm_89: 128x64 spills, 128x32 does not.
        cfg = Config(block_m=128, block_n=64 if arch >= 90 else 32, num_warps=8, num_stages=3)
    else:
        # D=192/256 pad to 256: only 64x32 with 8 warps is spill-free on every arch.
        cfg = Config(block_m=64, block_n=32, num_warps=8, num_stages=2 if small_smem else 3)
    rows, heads = seq_q, batch_heads  # a block's rows come from one head, or a packed group
    # D=16 (block_d 16) packed spilled 8 B on sm_80 (16x32, 4 warps); it gains little there.
    if group > 1 and seq_q * group <= PACK_ROWS and bd >= 32:
        cfg, rows, heads = dataclasses.replace(cfg, pack_gqa=True), seq_q * group, batch_heads // group
    cfg = fit_seq_q(cfg, rows)
    # D=256 decode streams twice the bytes a key: two waves of splits keep more loads in flight.
    waves = 2 if bd > 128 and cfg.block_m <= 16 else 1
    splits = split_kv_for(cdiv(rows, cfg.block_m) * heads, seq_k, cfg.block_n, 4 if cfg.block_m <= 16 else 8, waves)
    return cfg if splits == 1 else _with_splits(cfg, splits, bd, small_smem)


def _with_splits(cfg: Config, splits: int, bd: int, small_smem: bool) -> Config:
    """The merge holds one more [block_m, block_d] fp32 tile. Spill-free per profile --offline:
    64-row tiles at block_d >= 128 need 8 warps (4 spill 8-32 B on sm_90); block_d = 256
    (16x32, 3 stages: 16 B causal) and sm_86/sm_89 (64x64x8w, 3 stages: 32 B) need 2 stages.
    sm_86/sm_89 also need 8 warps: compiled as a launch specialises it, 4 warps spill there
    (64x64 2 stages D=24 causal: 8 B; 16x64 D=128: 24 B), 8 warps do not."""
    changes = {"split_kv": splits}
    if (bd >= 128 and cfg.block_m >= 64) or small_smem:
        changes["num_warps"] = 8
    if bd > 128 or small_smem:
        changes["num_stages"] = 2
    return dataclasses.replace(cfg, **changes)


def split_kv_for(ctas: int, seq_k: int, block_n: int, min_tiles: int = 8, waves: int = 1) -> int:
    """Double the key splits while the grid stays within ``waves`` waves and each split keeps
    >= ``min_tiles`` KV tiles. H100 sweep, graph mode (benchmarks/results/2026-11-22-h100-split-kv/):
    Sq=1 Sk=8k B*H=8: 108.7 -> 19.3 us at 16 splits (the rule's pick); B*H=32: 111.6 ->
    51.8 at 4 (pick); Sq=128 Sk=8k D=64 B*H=8: 75.9 -> 18.9 at 8 (pick). At the seed shape
    (8 KV tiles per query tile) every split was slower (7.83 -> 8.44 us at 2): none.
    Blocks of 16 rows or less (decode) keep 4 tiles: their partials are 16 rows, and since
    the merge loads them four at a time the D=64 cells that 8 tiles held to half a wave
    gain from a full one (B=1 Hq/Hkv 32/4 Sk8k 11.8 -> 11.3 us at 32 splits, 32/8 Sk4k
    11.0 -> 9.9 at 16; the D=128 cells are held by the wave: 2026-11-25-h100-prefetch-and-decode/8-splits/).
    D=256 decode takes two waves (2026-11-26-h100-causal-tiles/9-decode/, B=8 Hq/Hkv 16/8
    Sk=8k, against cuDNN's 192 us): 2 splits (one wave) 221 us, 4 splits 181, 8 splits 186;
    at D=128 (B=8 32/8 Sk=8k) the one-wave pick stays ahead of 8 and 16 splits."""
    splits = 1
    while ctas * splits * 2 <= SMALL_GRID_CTAS * waves and cdiv(seq_k, block_n) >= min_tiles * splits * 2:
        splits *= 2
    return splits


# Rows of a packed GQA block at most: per-row head offsets stay live across the KV loop, and
# 64-row packed blocks spilled 16-124 B on sm_80/89/90 (profile --offline); 16-row ones fit.
PACK_ROWS = 16


def packs(config: Config, seq_q: int, group: int) -> bool:
    """Whether a launch of ``config`` packs the query heads of each KV head into one
    block: asked for, GQA, and every row of the group fits the block."""
    return config.pack_gqa and group > 1 and seq_q * group <= config.block_m


SMALL_GRID_CTAS = 132  # one wave on an H100; sm_80/sm_89 have 108/58 SMs, close enough


def small_grid(seq_q: int, batch_heads: int) -> bool:
    """128-row query tiles would fill at most one wave of CTAs."""
    return cdiv(seq_q, 128) * batch_heads <= SMALL_GRID_CTAS


def fit_seq_q(cfg, seq_q: int):
    """Shrink ``cfg.block_m`` (any family's Config) to the query length.

    A 128-row block for a 1-row query wastes 127/128 of the MMA; tl.dot needs M >= 16.
    """
    block_m = min(cfg.block_m, max(16, next_pow2(seq_q)))
    if block_m == cfg.block_m:
        return cfg
    changes = dict(block_m=block_m, num_warps=min(cfg.num_warps, 4))
    if getattr(cfg, "warp_specialize", False):
        changes["warp_specialize"] = False  # 4-warp warp specialisation fails to compile (hopper_fwd.constraints)
    return dataclasses.replace(cfg, **changes)


# ----------------------------------------------------------------------------------
# 3. Launcher
# ----------------------------------------------------------------------------------
_launch = CachedLauncher(_attn_fwd_kernel)


def upcast_for_interpreter(dtype: torch.dtype) -> bool:
    # The interpreter's tl.dot on bf16 operands returns garbage; fp32 operands are exact.
    return INTERPRET and dtype == torch.bfloat16


def uses_pdl(arch: int, config: Config) -> bool:
    """Whether launches of ``config`` on ``arch`` (e.g. 90) are programmatic dependents.

    sm_90+ only: griddepcontrol does not assemble for sm_80/89. Not where keys are split
    across CTAs: there PDL lost 2.4% (H100, graph mode, paired rounds: Sq=256 Sk=4k and
    Sq=1 Sk=8k, 0.976 each; 0.973 the session before), while it wins 5% at the seed
    (benchmarks/results/2026-11-23-h100-graph-lifetime/pair.log).
    """
    return arch >= 90 and config.split_kv == 1


def merge_chunk(arch: int, config: Config, head_dim: int) -> int:
    """Splits whose partials the last split's merge loads at once. On the H100, four
    16x128 fp32 tiles: decode 1.00-1.15x (B=1 H=8 Sq=1 Sk=8k D=128 19.4 -> 17.6 us,
    2026-11-25-h100-prefetch-and-decode/7-merge/). On sm_80/sm_89, at block_d 16 and for
    larger tiles, one: there ptxas spilled 8-24 B with four (profile --offline)."""
    width = block_d(head_dim)
    return 4 if arch >= 90 and width >= 32 and config.block_m * width <= 2048 else 1


def kernel_constexprs(config: Config, head_dim: int, causal: bool, pdl: bool, upcast: bool = False,
                      arch: int = 90) -> dict:
    """The constexprs a launch of ``config`` passes (also what the offline compile uses).
    Every constexpr is named: the offline compile would take an omitted one as a runtime
    integer, as it once did STORE_LSE."""
    return dict(HEAD_DIM=head_dim, BLOCK_D=block_d(head_dim), BLOCK_M=config.block_m, BLOCK_N=config.block_n,
                CAUSAL=causal, UPCAST=upcast, SPLITS=config.split_kv, PDL=pdl, PACK_GQA=config.pack_gqa,
                MERGE_CHUNK=merge_chunk(arch, config, head_dim))


def _pdl_for(q: torch.Tensor, config: Config) -> bool:
    # device_arch is cached: forward() without a plan prepares on every call (torch.compile's op).
    return pdl_on() and not INTERPRET and q.is_cuda and uses_pdl(device_arch(q.get_device()), config)


def _split_workspace(grid, query_rows: int, width: int, lse: torch.Tensor):
    """(partial out, partial lse, tickets) for split-KV (``query_rows``: B * Hq * Sq).
    Without splits the kernel never touches them: ``lse`` stands in, so the common path
    allocates nothing more."""
    tiles, splits = grid[0] * grid[1], grid[2]
    if splits == 1:
        return lse, lse, lse
    device = lse.device
    rows = splits * query_rows
    (ws_o, ws_l), tickets = split_buffers(tiles, (rows * width, rows), device)  # a ticket per query tile
    return ws_o, ws_l, tickets


def prepare(q, k, v, causal: bool, scale: float, config: Config, store_lse: bool = True, out=None):
    """Everything a launch derives from shapes, strides and flags, done once.

    Returns ``run(q, k, v, out=None, lse=None) -> (out, lse)`` for tensors with these
    shapes, strides, dtypes and 16-byte alignment (``out``, when given, with the strides
    of the ``out`` passed here; else ``torch.empty_like(q)``'s). Without ``store_lse``
    the kernel skips the LSE store and ``run`` returns ``lse=None``: no allocation for
    callers that drop it.
    """
    batch, heads_q, seq_q, head_dim = q.shape
    heads_kv, seq_k = k.shape[1], k.shape[2]
    width = block_d(head_dim)
    if packs(config, seq_q, heads_q // heads_kv):
        grid = (1, batch * heads_kv, config.split_kv)
    else:
        config = dataclasses.replace(config, pack_gqa=False)
        grid = (cdiv(seq_q, config.block_m), batch * heads_q, config.split_kv)
    out_strides = (out if out is not None else torch.empty_like(q, device="meta")).stride()
    scalars = (scale * LOG2E, *q.stride(), *k.stride(), *v.stride(), *out_strides,
               heads_q, heads_q // heads_kv, seq_q, seq_k, int(store_lse))
    pdl = _pdl_for(q, config)
    arch = 90 if INTERPRET or not q.is_cuda else device_arch(q.get_device())
    constexprs = kernel_constexprs(config, head_dim, causal, pdl, upcast_for_interpreter(q.dtype), arch)
    launch = _launch.prepared(grid, constexprs, config.num_warps, config.num_stages, pdl)
    lse_shape = (batch, heads_q, seq_q)
    # Without store_lse the kernel never writes through LSE, but the pointer keeps LSE's
    # dtype: Triton specialises on it, and one binary should serve both values.
    placeholder = None if store_lse else lse_scratch(1, q.device)

    def run(q, k, v, out=None, lse=None):
        if out is None:
            out = torch.empty_like(q)
        if lse is None and store_lse:
            lse = q.new_empty(lse_shape, dtype=torch.float32)
        anchor = lse if store_lse else placeholder  # also stands in for unused workspace pointers
        ws_o, ws_l, tickets = _split_workspace(grid, batch * heads_q * seq_q, width, anchor)
        launch((q, k, v, out, anchor, ws_o, ws_l, tickets), scalars)
        return out, lse

    return run


def forward(
    q: torch.Tensor,
    k: torch.Tensor,
    v: torch.Tensor,
    causal: bool,
    scale: float,
    config: Config,
    out: torch.Tensor | None = None,
    lse: torch.Tensor | None = None,
) -> tuple[torch.Tensor, torch.Tensor]:
    """Launch the kernel. Inputs are already validated; Sq, Sk and B*H are > 0.

    ``out``/``lse`` may be passed preallocated (tests poison them first).
    """
    if out is None:
        out = torch.empty_like(q)
    return prepare(q, k, v, causal, scale, config, out=out)(q, k, v, out, lse)
