"""Hopper (sm_90a) forward in Gluon: the FlashAttention-3 schedule, written by hand.

Triton's compiler decides on its own how ``tl.dot`` is issued, waited on and
overlapped with the softmax, and on sm_90 it stops near 500 TFLOPS at D=128. Gluon
exposes the pieces that FA3 schedules explicitly, so this kernel states the
schedule itself:

* Q once, then K and V through separate TMA rings (rank-4 descriptors over the
  caller's (B, H, S, D) strides, as in ``hopper_fwd``: the copy engine zero-fills
  or clips the sequence tail per (batch, head), so loads and stores need no masks).
  K and V have their own rings because they are released at different times: K_j
  as soon as S_j = Q K_j^T has landed, V_j only after P_j V_j. Separate rings let
  the loads of tile j + STAGES start one iteration earlier than a joint K/V slot.
* ``warpgroup_mma`` (wgmma) issued asynchronously, K/V from shared memory, P from
  registers (no shared-memory round trip for P); Q from shared memory, or loaded into
  registers once per query block where registers allow (``_q_in_registers``).
* FA3's issue order: S_{j} is issued, then P_{j-1} V_{j-1}. (ptxas waits for the PV GEMM
  before the softmax of tile j, so that it can pack the new P into the registers the GEMM
  reads: the softmax overlaps the other warpgroups' GEMMs, not its own. Pinning the wait
  after the softmax, as FA3 intends, measured no faster; docs/performance.md, v14.)
* Online softmax in the exp2 domain with fp32 accumulators (at D=128 the row sums stay
  per thread until the last tile, as FA4 keeps them); the first KV tile is
  peeled (it starts the pipeline) and always masked, so each loop has a single,
  compile-time masking mode: only diagonal and tail tiles pay for masks.

Two variants share that body. Stage 1 (``warp_specialize=False``): every warp
computes and the same warps refill the rings; a TMA copy is issued by one thread
for the whole CTA, so a slot is refilled only after a CTA barrier says every
warpgroup is done with it, which keeps the warpgroups in lockstep. Warp-specialised
(FA3's split): one producer warp does all TMA, two or three 4-warp consumer
partitions of 64 rows each compute (128x128 is FA3's D=128 tile, 192x128 its D=64
one), and full/empty mbarrier pairs per slot replace the CTA barrier, so the
warpgroups drift apart and share the tensor cores; setmaxnreg gives the consumers
240 registers (160 with three), the producer 24. That split is what moves D=128 from
Triton's ~500 TFLOPS to ~575 on an H100. Optionally (``pingpong``) the consumers take
turns issuing their GEMMs, FA3's warp scheduler barrier (named barriers with two
consumers, one mbarrier per consumer with three: ``named_turns``), so that one
warpgroup's softmax overlaps another's GEMMs by construction.
Optionally (``persistent``) one CTA per SM works through the query blocks, so that a
block's prologue and epilogue overlap its neighbours' GEMMs; causal blocks, which
differ in length, are then drawn from a counter as CTAs free up (one per stream,
which every launch leaves zeroed).

A third variant serves grids of a wave or less (``split_kv``): two to four consumer
warpgroups share one 64-row query block, each walking every W-th KV tile from its own
ring, and warpgroup 0 merges their softmax states through shared memory. Long causal
rows then wait for half their chain.
"""

from __future__ import annotations

import dataclasses
import functools
import math
from dataclasses import asdict, dataclass

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import (fence_async_shared, mbarrier, tma, warpgroup_mma,
                                                              warpgroup_mma_wait)
from triton.experimental.gluon.nvidia.hopper import TensorDescriptor

from ..reference import LOG2E
from . import causal_plan, ptx_sync
from .launch import (CachedLauncher, PreparedLaunch, pdl_on, spec_key, lse_scratch,
                     split_buffers, stream_counters, tma_layout_problem)
from .launch import device_facts as _device_facts
from .triton_fwd import SMALL_GRID_CTAS, cdiv, small_grid

LN2: gl.constexpr = gl.constexpr(math.log(2.0))
_UNSYNCED_ASM: gl.constexpr = gl.constexpr(f"// {ptx_sync.MARK} $0")
ptx_sync.install()
# The causal order's tail (``_tile_coords``) in KV heads up to which the heads before it are
# drawn one KV group at a time: 12 is half of the H100's 50 MB L2 over 2 MB of K/V a head.
ONE_GROUP_TAIL: gl.constexpr = gl.constexpr(12)
# setmaxnreg of the TMA producer warp (it holds a few indices and barrier phases).
PRODUCER_REGS: gl.constexpr = gl.constexpr(24)
# The first of the named turn barriers, one a consumer warpgroup (``named_turns``): Triton's
# partitions use barriers 0 to 3 (``bar.sync`` in the PTX); ptxas allows 16.
TURN_BARRIER = 8


# ----------------------------------------------------------------------------------
# 1. Device kernel
# ----------------------------------------------------------------------------------
@gluon.constexpr_function
def _mma_layout(num_warps, n):
    """wgmma accumulator layout of a [16 * num_warps, n] tile (S: n = BLOCK_N; O: HEAD_DIM)."""
    return gl.NVMMADistributedLayout(version=[3, 0], warps_per_cta=[num_warps, 1], instr_shape=[16, n, 16])


@gluon.constexpr_function
def _build(head_dim):
    """``padded_head_dim``'s rule for the kernels: its shared-memory tiles, O and the
    workspaces. A copy, because a constexpr function cannot call a plain one, and called
    from Python this one costs ~5 us (0.2 for the plain one, on the prepare path)."""
    return 32 if head_dim <= 32 else 64 if head_dim <= 64 else 128 if head_dim <= 128 else 256


@gluon.constexpr_function
def s_chunks(head_dim):
    """Widths of the S GEMM's column chunks over Q's and K's HEAD_DIM: the whole build at a
    build's own D; between the builds, D in powers of two (96 = 64 + 32, 80 = 64 + 16,
    112 = 64 + 32 + 16; at most four), so the GEMM skips the zero columns that TMA fills
    up to the build. Measured (2026-11-26-h100-head-dim-gemms/1-s-chunks/, paired graph
    rounds against the padded GEMM, auto's configs): S=4k full D=96 1.051, D=80 1.100, D=48
    1.034; causal 1.061 / 1.075 / 1.012; S=1k full 1.073 / 1.084 / 1.007, causal 1.00-1.02."""
    build = _build(head_dim)
    return (build,) if head_dim == build else tuple(1 << b for b in range(8, 3, -1) if head_dim >> b & 1)


@gluon.constexpr_function
def _s_chunk(head_dim, i):
    """(start, width) of chunk i of ``s_chunks`` (width 0 past the last)."""
    widths = s_chunks(head_dim)
    return (sum(widths[:i]), widths[i] if i < len(widths) else 0)


@gluon.jit
def _s_gemm(q2d, k_t, s_layout: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
            HEAD_DIM: gl.constexpr):
    """S = Q K^T, issued async over ``_s_chunk``'s column chunks (one group each)."""
    acc = gl.zeros([BLOCK_M, BLOCK_N], gl.float32, s_layout)
    C0: gl.constexpr = _s_chunk(HEAD_DIM, 0)
    C1: gl.constexpr = _s_chunk(HEAD_DIM, 1)
    C2: gl.constexpr = _s_chunk(HEAD_DIM, 2)
    C3: gl.constexpr = _s_chunk(HEAD_DIM, 3)
    if C0[1] == _build(HEAD_DIM):
        tok = warpgroup_mma(q2d, k_t, acc, use_acc=False, is_async=True)
    else:
        tok = warpgroup_mma(q2d.slice(C0[0], C0[1], 1), k_t.slice(C0[0], C0[1], 0), acc, use_acc=False,
                            is_async=True)
        if C1[1] != 0:
            tok = warpgroup_mma(q2d.slice(C1[0], C1[1], 1), k_t.slice(C1[0], C1[1], 0), tok, is_async=True)
        if C2[1] != 0:
            tok = warpgroup_mma(q2d.slice(C2[0], C2[1], 1), k_t.slice(C2[0], C2[1], 0), tok, is_async=True)
        if C3[1] != 0:
            tok = warpgroup_mma(q2d.slice(C3[0], C3[1], 1), k_t.slice(C3[0], C3[1], 0), tok, is_async=True)
    return tok


@gluon.jit
def _grid_wait():
    """PDL: wait until the grids this launch depends on (the stream's previous kernels)
    have finished and their writes are visible. Each partition calls it before its
    first global access; without a programmatic launch it returns at once."""
    gl.inline_asm_elementwise("griddepcontrol.wait; // $0", "=r", [], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _grid_trigger():
    """PDL: let the stream's next programmatic launch be scheduled (it waits for this grid
    in turn), so its launch overlaps this grid's tail instead of following it.

    Kernels whose CTAs can share an SM call it after their KV loop, not in the prologue.
    Triggered early, the next grid's CTAs take the slots this grid leaves free and wait
    there; they then start unevenly spread (B=1 H=8 S=2k D=64, 256 stage-1 CTAs on 132
    SMs: 21.1 -> 28.1 us). After the loop the seed gains as much (5.7 -> 5.1 us) and
    that shape loses nothing (2026-11-23-h100-pdl/2-trigger-placement/)."""
    gl.inline_asm_elementwise("griddepcontrol.launch_dependents; // $0", "=r", [], dtype=gl.int32,
                              is_pure=False, pack=1)


@gluon.jit
def _unsynced(LEAN: gl.constexpr):
    """LEAN: marks the next mbarrier operation as needing no partition barrier before it:
    the one Triton puts there is dropped from the PTX (``ptx_sync``, which says why that
    is safe). An empty asm statement, kept in order by its side effect."""
    if LEAN:
        gl.inline_asm_elementwise(_UNSYNCED_ASM, "=r", [], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _issue(desc, smem, bars, tile, n_tiles, off_b, off_hkv, BLOCK_N: gl.constexpr, STAGES: gl.constexpr,
           t0=0, TS: gl.constexpr = 1, LEAN: gl.constexpr = False):
    """Start the TMA copy of this CTA's K or V tile ``tile`` (key tile t0 + tile * TS)
    into its ring slot; no-op past its last tile. LEAN: without partition barriers."""
    slot = tile % STAGES
    pred = tile < n_tiles
    _unsynced(LEAN)
    mbarrier.expect(bars.index(slot), desc.block_type.nbytes, pred=pred)
    _unsynced(LEAN)
    tma.async_copy_global_to_shared(desc, [off_b, off_hkv, _tile_col(tile, t0, TS, BLOCK_N), 0], bars.index(slot),
                                    smem.index(slot), pred=pred)


@gluon.constexpr_function
def named_turns(num_wg):
    """Whether the ping-pong turns go through named barriers, FA3's warp scheduler barrier
    (``bar.sync`` to wait, each warp's ``bar.arrive`` to pass), rather than one mbarrier a
    consumer passed behind a partition barrier. A B B A trees in separate processes
    (2026-11-28-h200-small-d-ncu/, calls 2 and 5, bf16, old time over new, 30 ms rounds /
    alone): two consumer warpgroups (128x128 turns) gain in all seven cells, D=128 causal
    S=1k 1.018 / 1.013 and 1.011 / 1.007, full S=1k 1.008 / 1.009, D=80 / 96 causal S=1000
    1.014 / 1.022 and 1.014 / 1.014, D=80 S=2k 1.003 / 1.007, D=96 S=4k 1.001 / 1.008. Three
    are level or lose: D=64 S=8k full 0.987 / 0.982, causal 1.002, D=128 192x64 full 1.003 /
    1.004, causal 0.990 / 1.008, D=32 causal S=3000 1.007 / 1.007. Under ncu (call 3) the
    three-warpgroup D=32 loops wait for their turn in 5-35% of their stall samples, unequally
    by warpgroup: the turns' order, not their hand-over, is what they wait for there."""
    return num_wg == 2


@gluon.constexpr_function
def _turn_asm(op, wg):
    """``bar.sync`` / ``bar.arrive`` on warpgroup wg's turn barrier: named barrier
    TURN_BARRIER + wg of 256 threads, its owner's four warps and the four before it."""
    return f"bar.{op} {TURN_BARRIER + wg}, 256; // $0"


@gluon.jit
def _named_turn(op: gl.constexpr, wg: gl.constexpr):
    gl.inline_asm_elementwise(_turn_asm(op, wg), "=r", [], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _first_turn(WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr):
    """Named turns: WG 0 takes turn 0 without a predecessor, so it arrives on its own
    barrier once for the arrival that the warpgroup before it (the last) gives every later
    turn. That warpgroup's last arrival is left on the barrier at exit."""
    if PINGPONG and named_turns(NUM_WG):
        if WG == 0:
            _named_turn("arrive", 0)


@gluon.jit
def _wait_turn(turns, t, WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr):
    """Ping-pong: block until consumer WG may issue the GEMMs of its turn ``t``.

    Named turns (``named_turns``): WG's barrier completes once its four warps wait here
    and each warp of the warpgroup before it has passed the turn. That warpgroup can pass
    its next turn only after this one passed its own, around the ring, so no arrival
    counts toward the wrong phase.

    Otherwise turns[w] (count 1) is arrived on once per turn by the warpgroup before w, so
    its phase k completes when w may take turn k; WG 0 follows the last warpgroup one turn
    later, and a fresh barrier passes a wait on parity 1, so WG 0 waits on parity
    (t - 1) & 1 and goes first. Turns form one global order (turn t of every warpgroup
    before turn t + 1 of any), and a turn is passed only once every warp of its
    warpgroup has waited for it (``_pass_turn``), so a barrier is never arrived on twice
    before each of its owner's warps waited: the parity cannot alias.

    Every consumer takes n_tiles + 1 turns (tile 0, a step per further tile, masked or not,
    the last PV), so the last arrivals find nobody waiting and nothing deadlocks."""
    if PINGPONG:
        if named_turns(NUM_WG):
            _named_turn("sync", WG)
        elif WG == 0:
            mbarrier.wait(turns.index(WG), (t & 1) ^ 1)
        else:
            mbarrier.wait(turns.index(WG), t & 1)


@gluon.jit
def _pass_turn(turns, WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr):
    """The GEMMs of this turn are issued: the next warpgroup may issue its own while this
    one runs its softmax. Named turns: each warp arrives for itself and goes on. Otherwise
    the mbarrier is arrived on behind Triton's partition barrier, once all four warps have
    issued (not only warp 0, as ``_unsynced`` would let it): each warp waits for its turn
    by itself, and a warp still in its softmax (a sum check's redo) when warp 0 passed
    turn t could find turns[WG] two phases on, turn t + 1 already passed to it, and wait
    forever, its GEMM share never issued (2026-11-27-h100-causal-parts/: three consumer
    warpgroups, causal, fp16, hung within 1-20 s of replays)."""
    if PINGPONG:
        if named_turns(NUM_WG):
            _named_turn("arrive", (WG + 1) % NUM_WG)
        else:
            mbarrier.arrive(turns.index((WG + 1) % NUM_WG))


@gluon.constexpr_function
def o_parts(head_dim):
    """(start, width) of O's column parts, the P V GEMM's accumulators: the build's whole
    width at its own D; between the builds, the largest power of two below D and the
    smallest one holding the rest (96 = 64 + 32, 80 = 64 + 16, 192 = 128 + 64), unless the
    two add up to the build (112 = 64 + 64 stays whole). A D of half its build or less (D=16
    on the D=32 build) is one part of its own width: P V on m64n16k16, half the padded GEMM,
    read 1.023-1.043x on three warpgroups and 1.00-1.035x on stage 1 (H200, bf16; fp16
    1.020-1.046x; 2026-11-28-h200-d16-o-width/2-ab/, 18-stage1/, 19-fp16/). O otherwise
    stays whole on the D=64 and D=32 builds: at D=48 the parts read 1.008-1.021x of the
    padded GEMMs, no more than the S chunks alone (2026-11-26-h100-head-dim-gemms/
    1-s-chunks/, 2-o-parts/), and the causal three-warpgroup build (192x128, S >= 8k)
    spilled 32 B with them. D=24 as 16 + 8 columns (m64n16k16 + m64n8k16, correct on the
    swizzled V slice) read 0.969-0.990x of the whole 32 in four cells (H200, bf16;
    2026-11-28-h200-d24-o-parts/): a second P V instruction costs more than 8 columns save."""
    build = _build(head_dim)
    first = build // 2
    if head_dim <= first:
        return ((0, head_dim),)
    if head_dim == build or build <= 64:
        return ((0, build),)
    second = 1 << (head_dim - first - 1).bit_length()
    return ((0, build),) if first + second == build else ((0, first), (first, second))


@gluon.jit
def _o_zeros(NUM_WARPS: gl.constexpr, HEAD_DIM: gl.constexpr):
    """O's parts (``o_parts``), zeroed: a tuple of [16 * NUM_WARPS, width] accumulators."""
    PARTS: gl.constexpr = o_parts(HEAD_DIM)
    W0: gl.constexpr = PARTS[0][1]
    o = (gl.zeros([16 * NUM_WARPS, W0], gl.float32, _mma_layout(NUM_WARPS, W0)),)
    if len(PARTS) == 2:
        W1: gl.constexpr = PARTS[1][1]
        o = (o[0], gl.zeros([16 * NUM_WARPS, W1], gl.float32, _mma_layout(NUM_WARPS, W1)))
    return o


@gluon.jit
def _columns(buf, i: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Part i's columns of a [rows, build] shared buffer (the buffer itself where O is whole)."""
    PARTS: gl.constexpr = o_parts(HEAD_DIM)
    if len(PARTS) == 1 and PARTS[0][1] == _build(HEAD_DIM):
        return buf
    else:
        return buf.slice(PARTS[i][0], PARTS[i][1], 1)


@gluon.jit
def _pv_gemm(p, v, o, HEAD_DIM: gl.constexpr):
    """O += P V over O's parts, issued async (one group each)."""
    tok = (warpgroup_mma(p, _columns(v, 0, HEAD_DIM), o[0], is_async=True),)
    if len(o) == 2:
        tok = (tok[0], warpgroup_mma(p, _columns(v, 1, HEAD_DIM), o[1], is_async=True))
    return tok


@gluon.jit
def _o_landed(o_tok, p):
    """Wait for every wgmma group (O's parts the last): (o, p)."""
    if len(o_tok) == 1:
        o0, p = warpgroup_mma_wait(0, deps=[o_tok[0], p])
        o = (o0,)
    else:
        o0, o1, p = warpgroup_mma_wait(0, deps=[o_tok[0], o_tok[1], p])
        o = (o0, o1)
    return o, p


@gluon.jit
def _scaled(o, x):
    """O's parts times x per row (x: a row vector in any layout)."""
    out = (o[0] * gl.expand_dims(gl.convert_layout(x, gl.SliceLayout(1, o[0].type.layout)), 1),)
    if len(o) == 2:
        out = (out[0], o[1] * gl.expand_dims(gl.convert_layout(x, gl.SliceLayout(1, o[1].type.layout)), 1))
    return out


@gluon.jit
def _k_tile(k_smem, k_bars, tile, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr,
            SLOT0: gl.constexpr = 0):
    """Wait for K tile ``tile``; return it as the [D, BLOCK_N] B operand of S = Q K^T.
    The ring is slots SLOT0 .. SLOT0 + STAGES - 1 of the buffers (a subview of a
    multi-buffered allocation cannot be sliced in Gluon 3.6)."""
    slot = SLOT0 + tile % STAGES
    mbarrier.wait(k_bars.index(slot), (tile // STAGES) & 1)
    return k_smem.index(slot).reshape([BLOCK_N, _build(HEAD_DIM)]).permute((1, 0))


@gluon.jit
def _v_tile(v_smem, v_bars, tile, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr,
            SLOT0: gl.constexpr = 0):
    slot = SLOT0 + tile % STAGES
    mbarrier.wait(v_bars.index(slot), (tile // STAGES) & 1)
    return v_smem.index(slot).reshape([BLOCK_N, _build(HEAD_DIM)])


@gluon.jit
def _mask_scores(s, col0, offs_m, seq_k, causal_offset, s_layout: gl.constexpr, BLOCK_N: gl.constexpr,
                 CAUSAL: gl.constexpr):
    """-inf where key col0 + c is, causal, in row offs_m's future, else past Sk.

    Causal needs no Sk compare: a row r < Sq sees keys up to r + Sk - Sq <= Sk - 1. Rows
    past Sq (the last block's padding) may then see the copy engine's zero keys and
    values: finite, and never stored. The causal limit is compared as FA3 does: a column
    constant per register (cols & ~6) against a per-row limit minus the thread's lane
    offset (cols & 6; exact for any layout). Without the Sk compare, ptxas folds the
    constants into immediates: a masked step is one ISETP and one FSEL per score (D=64
    192x128: 691 -> 556 instructions; D=128 persistent: 726 -> 598), 1-3% faster at
    D=64 S >= 2k. With the Sk compare kept, neither form folded (v12, v16 in
    docs/performance.md; benchmarks/results/2026-11-23-h100-causal-mask/)."""
    cols = gl.arange(0, BLOCK_N, layout=gl.SliceLayout(0, s_layout))
    if CAUSAL:
        lane = gl.expand_dims(cols & 6, 0)
        c = gl.expand_dims(cols & ~6, 0)
        visible = c <= gl.expand_dims(offs_m + (causal_offset - col0), 1) - lane
    else:
        visible = gl.expand_dims(col0 + cols, 0) < seq_k
    return gl.where(visible, s, float("-inf"))


# How far (log2 units) a row's running max may trail its scores before it is raised;
# the exps of a tile are then at most 2**RESCALE_SLACK.
RESCALE_SLACK = gl.constexpr(8.0)
# The kernels' LAZY levels: 0 eager, 1 lazy (``_new_max``), MAX_FREE lazy without a row max on
# unmasked tiles (``_sum_checked``).
MAX_FREE = gl.constexpr(2)
# MAX_FREE + 1 and + 2: MAX_FREE with the row sums from the packed P (``Config.packed_sums``).
# MASKED_FREE added to a level from MAX_FREE: masked tiles take the max-free path too
# (``Config.masked_free``); ``_level`` strips it.
MASKED_FREE = gl.constexpr(8)


@gluon.constexpr_function
def _level(lazy):
    return lazy % MASKED_FREE.value


@gluon.jit
def _new_max(s, m_i, qk_scale, MASKED: gl.constexpr, LAZY: gl.constexpr):
    """(m_new, m_sub, alpha) of one online-softmax step in the log2 domain; the exps
    subtract m_sub.

    LAZY: the running max is raised only when a tile's max passes it by more than
    RESCALE_SLACK (FA4's rescale threshold): p stays <= 2**8, well inside fp16/bf16 and
    fp32 l, and the result is the same (o, l and the LSE use the same m). Most tiles
    then keep alpha = 1 for every row, and ``_rescale_o`` skips O's multiply."""
    m_tile = gl.max(s, 1) * qk_scale
    if LAZY:
        m_new = gl.where(m_tile > m_i + RESCALE_SLACK, m_tile, m_i)
    else:
        m_new = gl.maximum(m_i, m_tile)
    if MASKED:
        # A row with no visible key so far keeps m = -inf; subtracting 0 keeps p = 0.
        m_sub = gl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_sub = m_new
    return m_new, m_sub, gl.exp2(m_i - m_sub)


@gluon.jit
def _exps(s, m_sub, qk_scale):
    """p = exp2(s * scale - m_sub), per row (``_new_max``)."""
    return gl.exp2(s * qk_scale - gl.expand_dims(m_sub, 1))


def rescale_asm(per_thread: int) -> str:
    """PTX for ``_rescale_o`` over one thread's ``per_thread`` accumulator registers
    ($0.. in and out, tied; then as many alphas). In the wgmma accumulator layout a
    thread's registers 0-1 are one row and 2-3 the row 8 below, repeating, so alphas
    0 and 2 are its two rows'. A warp multiplies only when one of its rows moved."""
    n = per_thread
    lines = ["{", ".reg .pred moved, any;",
             f"setp.neu.f32 moved, ${2 * n}, 0f3F800000;",
             f"setp.neu.or.f32 moved, ${2 * n + 2}, 0f3F800000, moved;",
             "vote.sync.any.pred any, moved, 0xffffffff;",
             "@!any bra.uni skip;"]
    lines += [f"mul.f32 ${i}, ${i}, ${2 * n + i};" for i in range(n)]
    lines += ["skip:", "}"]
    return "\n".join(lines)


def rescale_constraints(per_thread: int) -> str:
    n = per_thread
    return ",".join(["=f"] * n + [str(i) for i in range(n)] + ["f"] * n)


_rescale_asm = gluon.constexpr_function(rescale_asm)
_rescale_constraints = gluon.constexpr_function(rescale_constraints)


def sum_check_asm(per_thread: int, partial: bool, fp16: bool, packed: bool = False) -> str:
    """PTX for ``_sum_checked``: one thread's ``per_thread`` scores of an unmasked tile whose
    exps subtracted the running max as it stood (x = s * scale - m, p = 2^x), with P already
    packed for the P @ V GEMM (pairs, low half first) and the sums taken.

    Operands: P (out, tied to the P input), the row sums, the raise of each row's max and
    2^-raise, O's rescale (out); then x, P and the sums (in; each register holds its row's
    sum). In the wgmma accumulator layout register i is row (i // 2) % 2 of the thread's two
    and column 8 * (i // 4) + 2 * (lane % 4) + i % 2. The sums are per (row, i % 2) with ``partial``
    (``_row_sums``' per-thread partials), else whole rows. A row whose sum is at most 2^8 has
    every p <= 2^8: its max stands, as the lazy rescale's rule would keep it. When some row of
    the warp sums past 2^8 (or to inf or NaN: an exp overflowed), the warp takes each row's max
    of x, raises the rows that passed their max by more than RESCALE_SLACK, and recomputes
    their P and sums from x, so no overflow survives. Chains, not trees, and P packed: at D=64
    three warpgroups leave no registers for more (x, packed P and O fill 128 of 160).
    ``packed``: no sums operand; the sums come from the packed P (``packed_sum_lines``)."""
    n, half = per_thread, per_thread // 2
    out_p, out_sum, out_up, out_alpha = 0, half, half + n, half + 2 * n
    in_x, in_sum = half + 3 * n, 2 * half + 4 * n
    cvt = "cvt.rn.f16x2.f32" if fp16 else "cvt.rn.bf16x2.f32"
    lines = ["{", ".reg .f32 s<4>, up<2>, a<2>, u, v, w;", ".reg .pred bad, any, big;"]
    if packed:
        lines += [".reg .b16 lo, hi;"] + _packed_sum_lines(half, out_p, partial, fp16)
    else:
        lines += [f"mov.f32 s{k}, ${in_sum + k};" for k in range(4)]
    lines += ["mov.f32 up0, 0f00000000;", "mov.f32 up1, 0f00000000;", "mov.f32 a0, 0f3F800000;",
              "mov.f32 a1, 0f3F800000;", "setp.gtu.f32 bad, s0, 0f43800000;"]
    lines += [f"setp.gtu.or.f32 bad, s{k}, 0f43800000, bad;" for k in (1, 2, 3)]  # > 256 or NaN
    lines += ["vote.sync.any.pred any, bad, 0xffffffff;", "@!any bra.uni done;"]
    for rs in (0, 1):
        mine = [i for i in range(n) if (i // 2) % 2 == rs]
        lines.append(f"mov.f32 up{rs}, ${in_x + mine[0]};")
        lines += [f"max.f32 up{rs}, up{rs}, ${in_x + i};" for i in mine[1:]]
        for lane in (1, 2):
            lines += [f"shfl.sync.bfly.b32 u, up{rs}, {lane}, 0x1f, 0xffffffff;", f"max.f32 up{rs}, up{rs}, u;"]
        lines += [f"setp.gt.f32 big, up{rs}, 0f41000000;", f"selp.f32 up{rs}, up{rs}, 0f00000000, big;",
                  f"neg.f32 u, up{rs};", "ex2.approx.ftz.f32 u, u;", f"selp.f32 a{rs}, u, 0f3F800000, big;"]
    lines += [f"mov.f32 s{k}, 0f00000000;" for k in range(4)]
    for k in range(half):
        rs = k % 2  # elements 2k and 2k + 1: row (k % 2), columns of parity 0 and 1
        lines += [f"sub.f32 u, ${in_x + 2 * k}, up{rs};", "ex2.approx.ftz.f32 v, u;",
                  f"sub.f32 u, ${in_x + 2 * k + 1}, up{rs};", "ex2.approx.ftz.f32 w, u;",
                  f"add.f32 s{2 * rs}, s{2 * rs}, v;", f"add.f32 s{2 * rs + 1}, s{2 * rs + 1}, w;",
                  f"{cvt} ${out_p + k}, w, v;"]
    if not partial:
        for rs in (0, 1):
            lines.append(f"add.f32 s{2 * rs}, s{2 * rs}, s{2 * rs + 1};")
            for lane in (1, 2):
                lines += [f"shfl.sync.bfly.b32 u, s{2 * rs}, {lane}, 0x1f, 0xffffffff;",
                          f"add.f32 s{2 * rs}, s{2 * rs}, u;"]
            lines.append(f"mov.f32 s{2 * rs + 1}, s{2 * rs};")
    lines.append("done:")
    for i in range(n):
        rs, cp = (i // 2) % 2, i % 2
        lines += [f"mov.f32 ${out_sum + i}, s{2 * rs + cp};", f"mov.f32 ${out_up + i}, up{rs};",
                  f"mov.f32 ${out_alpha + i}, a{rs};"]
    lines.append("}")
    return "\n".join(lines)


def packed_sum_lines(half: int, first: int, partial: bool, fp16: bool) -> list[str]:
    """PTX lines that set s0-s3 (row r, column parity c in s{2r + c}; whole rows, not
    ``partial``, repeat the row's sum in both) from one thread's ``half`` registers of packed
    P, $first..: 16-bit pair adds over each row's registers (register k is row k % 2, low
    half parity 0), then fp32. Up to 8 registers a row add as a tree; from 16 (128-key tiles)
    as a chain, whose one temporary a row keeps D=128's 128x128 tiles spill-free (a tree's
    eight spilled 16 B there). Needs .f32 s<4>, u and .b16 lo, hi declared."""
    add = "add.rn.f16x2" if fp16 else "add.rn.bf16x2"
    lines, temps = [], 0
    for rs in (0, 1):
        level = [f"${first + k}" for k in range(half) if k % 2 == rs]
        if len(level) >= 16:
            acc = f"t{temps}"
            temps += 1
            lines.append(f"{add} {acc}, {level[0]}, {level[1]};")
            lines += [f"{add} {acc}, {acc}, {r};" for r in level[2:]]
            level = [acc]
        while len(level) > 1:
            pairs, level = [level[i:i + 2] for i in range(0, len(level), 2)], []
            for pair in pairs:
                if len(pair) == 1:
                    level.append(pair[0])
                    continue
                lines.append(f"{add} t{temps}, {pair[0]}, {pair[1]};")
                level.append(f"t{temps}")
                temps += 1
        if fp16:
            lines += [f"mov.b32 {{lo, hi}}, {level[0]};", f"cvt.f32.f16 s{2 * rs}, lo;", f"cvt.f32.f16 s{2 * rs + 1}, hi;"]
        else:  # a bf16 is the top half of its fp32
            lines += [f"shl.b32 s{2 * rs}, {level[0]}, 16;", f"and.b32 s{2 * rs + 1}, {level[0]}, 0xffff0000;"]
        if not partial:
            lines.append(f"add.f32 s{2 * rs}, s{2 * rs}, s{2 * rs + 1};")
            for lane in (1, 2):
                lines += [f"shfl.sync.bfly.b32 u, s{2 * rs}, {lane}, 0x1f, 0xffffffff;",
                          f"add.f32 s{2 * rs}, s{2 * rs}, u;"]
            lines.append(f"mov.f32 s{2 * rs + 1}, s{2 * rs};")
    return [f".reg .b32 t<{max(temps, 1)}>;"] + lines


def packed_sums_asm(per_thread: int, partial: bool, fp16: bool) -> str:
    """PTX for ``_packed_sums``: the row sums of one thread's ``per_thread`` values of packed P
    ($n.. in, n / 2 registers, pairs low half first; ``packed_sum_lines``) in the layout
    ``sum_check_asm`` reads its sums in (out $0..$n-1: register i holds row (i // 2) % 2's
    sum, per column parity i % 2 with ``partial``, else the whole row's): half the adds of
    summing fp32 P, over the P that the P @ V GEMM reads."""
    n = per_thread
    lines = ["{", ".reg .f32 s<4>, u;", ".reg .b16 lo, hi;"] + _packed_sum_lines(n // 2, n, partial, fp16)
    lines += [f"mov.f32 ${i}, s{2 * ((i // 2) % 2) + i % 2};" for i in range(n)]
    return "\n".join(lines + ["}"])


def packed_sums_constraints(per_thread: int) -> str:
    return ",".join(["=f"] * per_thread + ["r"] * (per_thread // 2))


def sum_check_constraints(per_thread: int, packed: bool = False) -> str:
    n, half = per_thread, per_thread // 2
    sums = [] if packed else ["f"] * n
    return ",".join(["=r"] * half + ["=f"] * (3 * n) + ["f"] * n + [str(i) for i in range(half)] + sums)


_packed_sum_lines = gluon.constexpr_function(packed_sum_lines)
_packed_sums_asm = gluon.constexpr_function(packed_sums_asm)
_packed_sums_constraints = gluon.constexpr_function(packed_sums_constraints)
_sum_check_asm = gluon.constexpr_function(sum_check_asm)
_sum_check_constraints = gluon.constexpr_function(sum_check_constraints)


@gluon.jit
def _first(a, b):
    return a


@gluon.jit
def _sum_checked(x, p, sums, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, PARTIAL: gl.constexpr,
                 PACKED: gl.constexpr = 0):
    """(P, row sums, raise of each row's max, O's rescale) of an unmasked tile whose exps
    subtracted the running max as it stood, given its packed P and row sums
    (``sum_check_asm``): most tiles keep both and pay a compare and a vote. PACKED: ``sums``
    is already per register (``_packed_sums``). The asm's per-register outputs repeat
    each row's value; ``_first`` picks one."""
    PER_THREAD: gl.constexpr = BLOCK_M * BLOCK_N // (32 * gl.num_warps())
    if PACKED == 2:
        args = [x, p]
    elif PACKED == 1:
        args = [x, p, sums]
    else:
        if PARTIAL:
            sums_b = gl.reshape(gl.broadcast(gl.expand_dims(sums, 1), gl.reshape(x, [BLOCK_M, BLOCK_N // 8, 8]))[0],
                                [BLOCK_M, BLOCK_N])
        else:
            sums_b = gl.broadcast(gl.expand_dims(sums, 1), x)[0]
        args = [x, p, gl.convert_layout(sums_b, x.type.layout)]
    p, sums, up, alpha = gl.inline_asm_elementwise(
        _sum_check_asm(PER_THREAD, PARTIAL, p.dtype == gl.float16, PACKED == 2),
        _sum_check_constraints(PER_THREAD, PACKED == 2),
        args, dtype=[p.dtype, gl.float32, gl.float32, gl.float32], is_pure=True, pack=PER_THREAD)
    if PARTIAL:
        sums = gl.reduce(gl.reshape(sums, [BLOCK_M, BLOCK_N // 8, 8]), 1, _first)
    else:
        sums = gl.reduce(sums, 1, _first)
    return p, sums, gl.reduce(up, 1, _first), gl.reduce(alpha, 1, _first)


@gluon.jit
def _packed_sums(p, PARTIAL: gl.constexpr):
    """Row sums of packed P, per register in P's layout (``packed_sums_asm``)."""
    PER_THREAD: gl.constexpr = p.type.shape[0] * p.type.shape[1] // (32 * gl.num_warps())
    return gl.inline_asm_elementwise(_packed_sums_asm(PER_THREAD, PARTIAL, p.dtype == gl.float16),
                                     _packed_sums_constraints(PER_THREAD), [p], dtype=gl.float32, is_pure=True,
                                     pack=PER_THREAD)


@gluon.jit
def _rescale_o(o, alpha):
    """O's parts * alpha per row (``_rescale_part``)."""
    out = (_rescale_part(o[0], alpha),)
    if len(o) == 2:
        out = (out[0], _rescale_part(o[1], alpha))
    return out


@gluon.jit
def _rescale_part(o, alpha):
    """O * alpha per row, skipped by every warp whose rows all kept their max (alpha = 1,
    see ``_new_max``): a branch around the thread's whole accumulator, which plain
    Gluon cannot express per warp."""
    a = gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o.type.layout)), 1)
    a, o = gl.broadcast(a, o)
    PER_THREAD: gl.constexpr = o.type.shape[0] * o.type.shape[1] // (32 * gl.num_warps())
    return gl.inline_asm_elementwise(_rescale_asm(PER_THREAD), _rescale_constraints(PER_THREAD), [o, a],
                                     dtype=gl.float32, is_pure=True, pack=PER_THREAD)


@gluon.constexpr_function
def _partial_row_sums(head_dim):
    """Whether the row sums l stay per thread (``_row_sums``). At D=128 the loop loses 4
    SHFL and 6 FADD a tile (2 FFMA more) and ran 1.3-2.7% faster (full and causal,
    S >= 2k); at D=64 the same change ran ~5% slower in the one- and three-warpgroup
    builds, though its loop also shrank by 8 instructions: ptxas orders the two rows'
    exps differently there.
    benchmarks/results/2026-11-22-h100-row-sums/."""
    return head_dim > 64


@gluon.jit
def _row_sums(p, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, PARTIAL: gl.constexpr):
    """Row sums of p; ``PARTIAL``: as each thread holds them, [BLOCK_M, 8] over the key
    columns c with the same c % 8 (a quad's four lanes hold two each), so the sum stays
    in registers and the lanes' partials are added once, after the last tile."""
    if PARTIAL:
        return gl.sum(gl.reshape(p, [BLOCK_M, BLOCK_N // 8, 8]), 1)
    else:
        return gl.sum(p, 1)


@gluon.jit
def _rescale_sums(l_i, alpha, PARTIAL: gl.constexpr):
    if PARTIAL:
        return l_i * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, l_i.type.layout)), 1)
    else:
        return l_i * alpha


@gluon.jit
def _row_total(l_i, row_layout: gl.constexpr, PARTIAL: gl.constexpr):
    if PARTIAL:
        return gl.convert_layout(gl.sum(l_i, 1), row_layout)
    else:
        return l_i


@gluon.jit
def _to_operand(p, dtype: gl.constexpr):
    """fp32 P rounded to the PV GEMM's operand dtype, one packed cvt per register pair.

    ``p.to(dtype)`` yields 16-bit values that the loop carries one by one; ptxas then
    packs each pair in the wrong order and swaps its halves (a PRMT per register, 32 a
    tile: 6% of the unmasked loop's instructions at D=64). Packing here carries whole
    registers. Low half = the pair's first element, as Triton unpacks them."""
    if dtype == gl.bfloat16:
        return gl.inline_asm_elementwise("cvt.rn.bf16x2.f32 $0, $2, $1;", "=r,r,r", [p], dtype=gl.bfloat16,
                                         is_pure=True, pack=2)
    else:
        return gl.inline_asm_elementwise("cvt.rn.f16x2.f32 $0, $2, $1;", "=r,r,r", [p], dtype=gl.float16,
                                         is_pure=True, pack=2)


@gluon.jit
def _kv_step(j, ring0, turn0, p, o, m_i, l_i, q2d, k_smem, v_smem, k_bars, v_bars, k_empty, v_empty, turns,
             desc_k, desc_v, off_b, off_hkv, n_tiles, offs_m, seq_k, causal_offset, qk_scale,
             s_layout: gl.constexpr, p_layout: gl.constexpr,
             BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
             STAGES: gl.constexpr, MASKED: gl.constexpr, CAUSAL: gl.constexpr, WS: gl.constexpr,
             WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr, t0, TS: gl.constexpr,
             SLOT0: gl.constexpr, LAZY: gl.constexpr, LEAN: gl.constexpr):
    """This warpgroup's KV tile j (ring entry ring0 + j, turn turn0 + j; key tile
    t0 + j * TS): S_j on the tensor cores, then P_{j-1} V_{j-1}; softmax(S_j) meanwhile.
    LAZY: O's rescale is mostly skipped (``_new_max``, ``_rescale_o``). LEAN: the K wait
    and the releases go without partition barriers (``_unsynced``)."""
    _unsynced(LEAN)
    k_t = _k_tile(k_smem, k_bars, ring0 + j, BLOCK_N, HEAD_DIM, STAGES, SLOT0)
    _wait_turn(turns, turn0 + j, WG, NUM_WG, PINGPONG)
    s_tok = _s_gemm(q2d, k_t, s_layout, BLOCK_M, BLOCK_N, HEAD_DIM)
    v = _v_tile(v_smem, v_bars, ring0 + j - 1, BLOCK_N, HEAD_DIM, STAGES, SLOT0)
    o_tok = _pv_gemm(p, v, o, HEAD_DIM)
    _pass_turn(turns, WG, NUM_WG, PINGPONG)
    # wgmma groups retire in order: O's parts outstanding means S_j has landed.
    s = warpgroup_mma_wait(len(o_tok), deps=[s_tok])
    if MASKED:
        s = _mask_scores(s, _tile_col(j, t0, TS, BLOCK_N), offs_m, seq_k, causal_offset, s_layout, BLOCK_N, CAUSAL)
    PARTIAL: gl.constexpr = _partial_row_sums(HEAD_DIM)
    LEVEL: gl.constexpr = _level(LAZY)
    FREE: gl.constexpr = LEVEL >= MAX_FREE and (not MASKED or LAZY >= MASKED_FREE)
    if FREE:
        # No row max: the exps subtract the running max as it stands, and the row sums tell
        # whether any p passed 2^8 (``_sum_checked``; the branch sits after the P @ V wait,
        # where no wgmma is in flight for ptxas to wait on).
        m_sub = m_i
        if MASKED:
            # A row's visible keys are a prefix and its tiles rise, so a row that saw no key
            # in its first tile (m = -inf) sees none here: subtracting 0 keeps its p at 0.
            m_sub = gl.where(m_i == float("-inf"), 0.0, m_i)
        x = s * qk_scale - gl.expand_dims(m_sub, 1)
        p_f32 = gl.exp2(x)
        PACKED: gl.constexpr = LEVEL - MAX_FREE
        if PACKED == 0:  # this order keeps the SASS of the configs measured before packed sums
            sums = _row_sums(p_f32, BLOCK_M, BLOCK_N, PARTIAL)
            p_op = _to_operand(p_f32, q2d.dtype)
        else:
            p_op = _to_operand(p_f32, q2d.dtype)
            # PACKED 2: the check sums the packed P itself; m_i stands in for the unused operand.
            sums = _packed_sums(p_op, PARTIAL) if PACKED == 1 else m_i
        o, p = _o_landed(o_tok, p)
        # K_j and V_{j-1} are read (the redo works from x): release them before the check's
        # branch, which ptxas does not hoist the arrives across (freed after the softmax, the
        # slots cost 2-3% at D=128: v34's late_free).
        _release(j, ring0, desc_k, desc_v, k_smem, v_smem, k_bars, v_bars, k_empty, v_empty, n_tiles, off_b,
                 off_hkv, BLOCK_N, STAGES, WS, SLOT0, t0, TS, LEAN)
        p_op, sums, up, alpha = _sum_checked(x, p_op, sums, BLOCK_M, BLOCK_N, PARTIAL, PACKED)
        o = _rescale_o(o, alpha)
        m_i = m_i + up
        l_i = _rescale_sums(l_i, alpha, PARTIAL) + sums
    else:
        m_i, m_sub, alpha = _new_max(s, m_i, qk_scale, MASKED, LEVEL)
        if LAZY:
            # O's rescale (mostly skipped) before the exps: ptxas waits for the PV GEMM here
            # anyway, to pack the new P into the registers it reads, and a branch after the
            # packs cost ~30 register moves and spills.
            o, p = _o_landed(o_tok, p)
            o = _rescale_o(o, alpha)
        p_f32 = _exps(s, m_sub, qk_scale)
        l_i = _rescale_sums(l_i, alpha, PARTIAL) + _row_sums(p_f32, BLOCK_M, BLOCK_N, PARTIAL)
        p_op = _to_operand(p_f32, q2d.dtype)
    p_new = gl.convert_layout(p_op, p_layout)
    if not LAZY:
        o, p = _o_landed(o_tok, p)
        o = _scaled(o, alpha)
    if not FREE:  # released above, before the sum check's branch
        _release(j, ring0, desc_k, desc_v, k_smem, v_smem, k_bars, v_bars, k_empty, v_empty, n_tiles, off_b,
                 off_hkv, BLOCK_N, STAGES, WS, SLOT0, t0, TS, LEAN)
    return p_new, o, m_i, l_i


@gluon.jit
def _release(j, ring0, desc_k, desc_v, k_smem, v_smem, k_bars, v_bars, k_empty, v_empty, n_tiles, off_b, off_hkv,
             BLOCK_N: gl.constexpr, STAGES: gl.constexpr, WS: gl.constexpr, SLOT0: gl.constexpr, t0,
             TS: gl.constexpr, LEAN: gl.constexpr):
    """This warpgroup is done with K_j and V_{j-1}. Warp-specialised: tell the producer.
    Otherwise, once every warpgroup is (CTA barrier), refill the two slots ourselves
    (stage 1 runs one query block per CTA: its ring starts at ring0 = 0). With one
    warpgroup and LEAN, the refilling thread's own GEMM waits cover every warp's reads of
    both slots, and the refill goes without barriers."""
    if WS:
        _unsynced(LEAN)
        mbarrier.arrive(k_empty.index(SLOT0 + (ring0 + j) % STAGES))
        _unsynced(LEAN)
        mbarrier.arrive(v_empty.index(SLOT0 + (ring0 + j - 1) % STAGES))
    else:
        LEAN_REFILL: gl.constexpr = LEAN and gl.num_warps() == 4
        if not LEAN_REFILL:
            gl.thread_barrier()
        _issue(desc_k, k_smem, k_bars, j + STAGES, n_tiles, off_b, off_hkv, BLOCK_N, STAGES, t0, TS, LEAN_REFILL)
        _issue(desc_v, v_smem, v_bars, j - 1 + STAGES, n_tiles, off_b, off_hkv, BLOCK_N, STAGES, t0, TS,
               LEAN_REFILL)


@gluon.jit
def _tile_col(j, t0, TS: gl.constexpr, BLOCK_N: gl.constexpr):
    """First key of a warpgroup's KV tile j: key tile t0 + j * TS (TS = 1: every tile from
    t0 on; t0 is a constant 0 except in a stream-K piece, so nothing more is emitted)."""
    return (t0 + j * TS) * BLOCK_N


@gluon.jit
def _kv_bounds(m0, causal_offset, seq_k, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr):
    """(tiles, unmasked tiles) of one query block. Tiles past the causal horizon are
    skipped; at least one tile is visited so fully hidden rows still finish cleanly."""
    if CAUSAL:
        hi = gl.maximum(gl.minimum(seq_k, m0 + BLOCK_M + causal_offset), 0)
        full = gl.minimum(gl.maximum(m0 + causal_offset + 1, 0), seq_k)
    else:
        hi = seq_k
        full = seq_k
    return gl.maximum(gl.cdiv(hi, BLOCK_N), 1), full // BLOCK_N


@gluon.jit
def _lse_and_inverse(l_i, m_i):
    """(LSE, 1 / l) of finished rows; rows that saw no key end with l = 0: 1 / l is then
    1 (their O is 0) and the LSE -inf."""
    empty = l_i == 0.0
    l_safe = gl.where(empty, 1.0, l_i)
    # l >= 1 for a row that saw a key (its running max's own p is 1, and a rescale keeps
    # the new max's), so the hardware approximations lose nothing here: lg2.approx is
    # accurate to ~2^-22 absolute, rcp.approx to 1 ulp. The precise forms are a range-checked
    # polynomial (~30 instructions) and a scaled reciprocal per row on every item's serial
    # tail.
    log2_l = gl.inline_asm_elementwise("lg2.approx.ftz.f32 $0, $1;", "=f,f", [l_safe], dtype=gl.float32,
                                       is_pure=True, pack=1)
    lse = gl.where(empty, float("-inf"), (m_i + log2_l) * LN2)
    inv_l = gl.inline_asm_elementwise("rcp.approx.ftz.f32 $0, $1;", "=f,f", [l_safe], dtype=gl.float32,
                                      is_pure=True, pack=1)
    return lse, inv_l


@gluon.jit
def _store_out(o, l_i, m_i, o_smem, desc_o, LSE, off_b, off_h, m0, pid_bh, seq_q,
               NUM_WARPS: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, PERSISTENT: gl.constexpr,
               LEAD: gl.constexpr = False):
    """Normalise; rows that saw no key end with l = 0: out 0, lse -inf. O goes out by
    TMA, clipped at Sq by the copy engine, through Q's shared buffer (Q is dead by now)
    or, persistent, through its own buffer: the store of one query block then runs on
    while the next one computes, and only the next epilogue waits for it. LEAD: rows from m0
    may lie before row 0 (``leads``), a whole warpgroup's or none; those store nothing."""
    BLOCK_M: gl.constexpr = 16 * NUM_WARPS
    offs_m = m0 + gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, _mma_layout(NUM_WARPS, BLOCK_N)))
    lse, inv_l = _lse_and_inverse(l_i, m_i)
    out = _scaled(o, inv_l)
    keep = offs_m < seq_q
    if LEAD:
        keep = keep & (offs_m >= 0)
    gl.store(LSE + pid_bh.to(gl.int64) * seq_q + offs_m, lse, mask=keep)
    if PERSISTENT:
        tma.store_wait(0)
    gl.thread_barrier()
    o2d = o_smem.reshape([BLOCK_M, _build(HEAD_DIM)])
    # Columns past O's parts are past D: the TMA store leaves them out.
    _columns(o2d, 0, HEAD_DIM).store(out[0].to(desc_o.dtype))
    if len(out) == 2:
        _columns(o2d, 1, HEAD_DIM).store(out[1].to(desc_o.dtype))
    fence_async_shared()
    gl.thread_barrier()
    if LEAD:
        # A negative TMA coordinate faults. The guard only where a lead can be: on the D=128
        # full 192x64 build it cost 56 B of spills.
        if m0 >= 0:
            tma.async_copy_shared_to_global(desc_o, [off_b, off_h, m0, 0], o_smem)
    else:
        tma.async_copy_shared_to_global(desc_o, [off_b, off_h, m0, 0], o_smem)
    if not PERSISTENT:
        tma.store_wait(0)


@gluon.jit
def _attend(q_smem, q_bar, q_phase, q_empty, k_smem, v_smem, k_bars, v_bars, k_empty, v_empty, turns,
            desc_k, desc_v, qk_scale, off_b, off_hkv, m0, n_tiles, ring0, turn0, seq_q, seq_k,
            NUM_WARPS: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
            STAGES: gl.constexpr, CAUSAL: gl.constexpr, WS: gl.constexpr,
            WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr,
            LAZY: gl.constexpr, t0=0, TS: gl.constexpr = 1, SLOT0: gl.constexpr = 0, LEAN: gl.constexpr = True,
            PIECE: gl.constexpr = False):
    """Rows [m0, m0 + BLOCK_M) against n_tiles KV tiles, key tiles t0, t0 + TS, ...
    (all of them unless the keys are split between warpgroups; PIECE: key tiles t0 ..
    t0 + n_tiles - 1, a stream-K piece of the row): returns (o, l, m) for ``_store_out``.

    Warp-specialised, this is consumer WG of NUM_WG; its KV tiles are ring entries
    ring0.. and its GEMM turns turn0.. (``turns`` is only read with PINGPONG). Persistent,
    Q's buffer is handed back (``q_empty``) once the last S GEMM has read it, so the
    producer loads the next query block during this one's last PV GEMM and epilogue.
    LEAN: the KV loops wait and release without partition barriers (``_unsynced``):
    1-4% on every grid that fills the GPU (2026-11-23-h100-lean-sync/), but 2.5% slower
    in the split kernel's small grids, which keep them."""
    s_layout: gl.constexpr = _mma_layout(NUM_WARPS, BLOCK_N)
    o_layout: gl.constexpr = _mma_layout(NUM_WARPS, o_parts(HEAD_DIM)[0][1])
    p_layout: gl.constexpr = gl.DotOperandLayout(operand_index=0, parent=o_layout, k_width=2)
    row_layout: gl.constexpr = gl.SliceLayout(1, s_layout)
    offs_m = m0 + gl.arange(0, BLOCK_M, layout=row_layout)
    causal_offset = seq_k - seq_q
    seen, n_full = _kv_bounds(m0, causal_offset, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    if TS > 1:
        n_full = gl.cdiv(gl.maximum(n_full - t0, 0), TS)  # this warpgroup's tiles below n_full
    if PIECE:
        n_full = gl.minimum(gl.maximum(n_full - t0, 0), n_tiles)
    SKIP: gl.constexpr = _skips_unseen(WS, TS, NUM_WG, CAUSAL, _build(HEAD_DIM))
    own = _own_tiles(seen, m0, t0, n_tiles, seq_q, SKIP)
    if SKIP:
        n_full = gl.minimum(n_full, own)  # rows of padding: whole tiles, but none of their own
    mbarrier.wait(q_bar, q_phase)
    q2d = q_smem.reshape([BLOCK_M, _build(HEAD_DIM)])
    if _q_in_registers(PERSISTENT, NUM_WG, HEAD_DIM):
        q2d = q2d.load(gl.DotOperandLayout(operand_index=0, parent=s_layout, k_width=2))

    # Tile 0, peeled: S_0 and its softmax start the pipeline. Masked only where the loop
    # would mask it (n_full == 0): most items' first tile is whole, and the mask's compare
    # and select per score sat on every item's serial chain. Paired rounds
    # (2026-11-25-h100-pingpong-fp16/9-first-tile-mask/): D=128 persistent full S512 / S1k
    # 1.039 / 1.018, seed 1.004-1.012; with three consumer warpgroups (D=64 192x128) 0.97,
    # so those keep the unconditional mask (and their old binary).
    k_t = _k_tile(k_smem, k_bars, ring0, BLOCK_N, HEAD_DIM, STAGES, SLOT0)
    _wait_turn(turns, turn0, WG, NUM_WG, PINGPONG)
    s_tok = _s_gemm(q2d, k_t, s_layout, BLOCK_M, BLOCK_N, HEAD_DIM)
    _pass_turn(turns, WG, NUM_WG, PINGPONG)
    s = warpgroup_mma_wait(0, deps=[s_tok])
    # Three warpgroups mask every item's first tile (D=64's 192x128 read 0.97 without, v25)
    # but on causal plan pieces, where the condition takes ~130 instructions a consumer off
    # most items' serial path: pairs D=16 / 24 / 32 / 48 / 64 1.024 / 1.036 / 1.028 / 1.02 /
    # 1.015. Drawn items read 0.993-0.998 with it, D=128's 192x64 0.98-1.00 and full rows
    # 0.994; D=128's full 192x64 spills 36 B without the mask (v68, H200).
    ALWAYS: gl.constexpr = NUM_WG == 3 and not (CAUSAL and PIECE)
    if ALWAYS or n_full == 0:
        # Sk through an opaque move where the mask is conditional: else ptxas hoists this
        # tile's compares out of the item loop and spills their predicates (24 B, D=128
        # persistent, generic launch).
        seq_k_mask = seq_k if ALWAYS else _opaque(seq_k)
        s = _mask_scores(s, _tile_col(0, t0, TS, BLOCK_N), offs_m, seq_k_mask, causal_offset, s_layout, BLOCK_N, CAUSAL)
    m_i = gl.full([BLOCK_M], float("-inf"), gl.float32, row_layout)
    m_i, m_sub, _ = _new_max(s, m_i, qk_scale, True, LAZY)
    p_f32 = _exps(s, m_sub, qk_scale)
    l_i = _row_sums(p_f32, BLOCK_M, BLOCK_N, _partial_row_sums(HEAD_DIM))
    p = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
    o = _o_zeros(NUM_WARPS, HEAD_DIM)
    if WS:
        mbarrier.arrive(k_empty.index(SLOT0 + ring0 % STAGES))
    else:
        gl.thread_barrier()
        _issue(desc_k, k_smem, k_bars, STAGES, n_tiles, off_b, off_hkv, BLOCK_N, STAGES, t0, TS)

    UNROLL: gl.constexpr = _unrolled(PERSISTENT, NUM_WG, _build(HEAD_DIM), CAUSAL, PINGPONG, LAZY >= MAX_FREE)
    # Unrolled, an odd unmasked tile goes to the masked loop, which handles any tile.
    n_unmasked = 1 + (gl.maximum(n_full, 1) - 1) // 2 * 2 if UNROLL else gl.maximum(n_full, 1)
    STEPS: gl.constexpr = 2 if UNROLL else 1
    for j in range(1, n_unmasked, STEPS):
        for u in gl.static_range(STEPS):
            p, o, m_i, l_i = _kv_step(j + u, ring0, turn0, p, o, m_i, l_i, q2d, k_smem, v_smem, k_bars, v_bars,
                                      k_empty, v_empty, turns, desc_k, desc_v, off_b, off_hkv, n_tiles, offs_m, seq_k,
                                      causal_offset, qk_scale, s_layout, p_layout, BLOCK_M, BLOCK_N,
                                      HEAD_DIM, STAGES, False, CAUSAL, WS, WG, NUM_WG, PINGPONG, t0, TS, SLOT0, LAZY,
                                      LEAN)
    for j in range(n_unmasked, own):
        p, o, m_i, l_i = _kv_step(j, ring0, turn0, p, o, m_i, l_i, q2d, k_smem, v_smem, k_bars, v_bars, k_empty,
                                  v_empty, turns, desc_k, desc_v, off_b, off_hkv, n_tiles, offs_m, seq_k,
                                  causal_offset, qk_scale, s_layout, p_layout, BLOCK_M, BLOCK_N, HEAD_DIM,
                                  STAGES, True, CAUSAL, WS, WG, NUM_WG, PINGPONG, t0, TS, SLOT0, LAZY, LEAN)
    if PERSISTENT:
        mbarrier.arrive(q_empty)  # every S GEMM has landed: Q is read

    v = _v_tile(v_smem, v_bars, ring0 + own - 1, BLOCK_N, HEAD_DIM, STAGES, SLOT0)
    _wait_turn(turns, turn0 + own, WG, NUM_WG, PINGPONG)
    o_tok = _pv_gemm(p, v, o, HEAD_DIM)
    _pass_turn(turns, WG, NUM_WG, PINGPONG)
    if len(o_tok) == 1:
        o = (warpgroup_mma_wait(0, deps=[o_tok[0]]),)
    else:
        o = warpgroup_mma_wait(0, deps=[o_tok[0], o_tok[1]])
    if WS:
        # The last V slot: with ring entries running on across query blocks, the
        # producer refills it for the next one.
        mbarrier.arrive(v_empty.index(SLOT0 + (ring0 + own - 1) % STAGES))
    if SKIP:
        _pass_unseen(own, n_tiles, ring0, turn0, k_bars, v_bars, k_empty, v_empty, turns, STAGES, SLOT0, WG, NUM_WG,
                     PINGPONG)
    return o, _row_total(l_i, row_layout, _partial_row_sums(HEAD_DIM)), m_i


@gluon.constexpr_function
def _skips_unseen(ws, ts, num_wg, causal, build):
    """Whether a warpgroup leaves out the tiles its rows do not see (``_own_tiles``): a
    warp-specialised walk of every tile (the producer loads the block's) by three
    warpgroups, causal, on the D=64 and D=128 builds. Paired rounds, time before / after
    (2026-11-26-h100-causal-turns/18-own-tiles/, 19-three-warpgroups/ on an H200, 21-h100/):
    D=64's 192-row blocks causal S=8k 1.042-1.043 in three runs, S=16k 1.024-1.027, bf16 and
    fp16. Full rows skip only a last block's padding: D=64 S=2k-8k 1.003-1.009, D=96's 192x64
    0.989, D=80's 1.004. Two warpgroups (128-row blocks) lose 1-1.4%, S=3000 causal included
    (0.986-0.999): only a last block's padding half skips there, and the lower warpgroup's
    chain, alone, sets the item's time. The D=32 build spills 16 B with it (the offline gate,
    specialised as a launch); D=48 on the D=64 build compiles clean and was not timed. On the
    D=128 build's 192x64 tiles a warpgroup then ends at its own 64x64 diagonal tile
    (``causal_three_warpgroups_pay``: 1.01-1.05x over 128x128 from 2k-8k keys, alone;
    spill-free offline in both dtypes at D=72-128 with two or three stages)."""
    return bool(ws) and ts == 1 and num_wg == 3 and bool(causal) and build in (64, 128)


@gluon.jit
def _own_tiles(seen, m0, t0, n_tiles, seq_q, SKIP: gl.constexpr):
    """How many of a warpgroup's n_tiles KV tiles (from key tile t0) its own rows from m0
    see, at least one; ``seen``: the key tiles they see (``_kv_bounds``). The producer loads
    what the whole block's rows see, so a warpgroup below the block's last rows (causal)
    finds the last tiles wholly masked, and one whose rows are all the last block's padding
    past Sq needs none: 192-row blocks at D=64 leave 2-10% of the warpgroup-tiles so
    (square causal, S = 2k-16k). SKIP (``_skips_unseen``): ``_pass_unseen`` hands the rest
    back; else all n_tiles."""
    own = n_tiles
    if SKIP:
        own = gl.minimum(gl.maximum(gl.where(m0 < seq_q, seen, 0) - t0, 1), n_tiles)
    return own


@gluon.jit
def _pass_unseen(own, n_tiles, ring0, turn0, k_bars, v_bars, k_empty, v_empty, turns, STAGES: gl.constexpr,
                 SLOT0: gl.constexpr, WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr):
    """Tiles own .. n_tiles - 1, which this warpgroup's rows do not see: their turns
    (turn0 + j + 1, after the last P @ V's) and their ring slots, without GEMMs. Each slot
    is handed back only once it has landed: a release before the load would count toward
    the slot's previous use, whose readers may not be done. With no GEMM to gather the
    four warps, the releases keep Triton's partition barrier: every warp has seen the slot
    land before its next load can complete the same parity again (``_pass_turn``)."""
    for j in range(own, n_tiles):
        slot = SLOT0 + (ring0 + j) % STAGES
        phase = ((ring0 + j) // STAGES) & 1
        mbarrier.wait(k_bars.index(slot), phase)
        _wait_turn(turns, turn0 + j + 1, WG, NUM_WG, PINGPONG)
        _pass_turn(turns, WG, NUM_WG, PINGPONG)
        mbarrier.arrive(k_empty.index(slot))
        mbarrier.wait(v_bars.index(slot), phase)
        mbarrier.arrive(v_empty.index(slot))


@gluon.constexpr_function
def _q_in_registers(persistent, num_wg, head_dim):
    """Whether the S GEMMs take Q from registers (wgmma's A operand, as P @ V takes P)
    instead of shared memory: 32 more registers a thread at D=128, and a fifth less
    shared-memory reading per key tile (Q's 16 KB beside K's and V's 32 KB each). Measured
    (2026-11-26-h100-q-regs/, paired rounds, auto's configs): the persistent two-warpgroup
    D=128 builds (240 registers) run 1.009-1.039 as fast with it, S=8k causal [1.009, 1.028].
    Stage 1 ran 0.77 / 0.96 (64x64 / 64x32): it fits several CTAs on an SM, and the extra
    registers (150 -> 190, 120 -> 152 a thread) cut them from 3 to 2 and from 4 to 3. The
    three-warpgroup D=64 builds (160 registers) spill with it."""
    return bool(persistent) and num_wg == 2 and head_dim == 128


@gluon.constexpr_function
def _unrolled(persistent, num_wg, head_dim, causal, pingpong, max_free):
    """Whether the unmasked KV loop takes two tiles an iteration. Every max-free unmasked
    loop ends with 15-30 register copies: the sum check's P comes out of its asm in
    registers other than the ones the next P @ V GEMM reads. With two steps an iteration
    the tiles' P alternate between two register sets (D=128 full: 354 -> 332 instructions a
    tile on the common path). Measured (2026-11-26-h100-epilogue-approx/, paired rounds,
    auto's configs): the persistent two-warpgroup D=128 full builds (stream-K, no turns)
    run 1.025-1.030 as fast from S=4k, S=8k [1.017, 1.055] and S=16k [1.015, 1.049], S=2k
    1.004. Everywhere else it lost: D=128 causal 0.957 (and 8 B spilled), stage 1 at D=64
    0.949-0.968, D=64's three-warpgroup builds 0.84-0.91, D=128 64x64 causal 0.990; there
    half the items send a tile through the masked loop, and the loop's code doubles."""
    return bool(max_free and persistent) and num_wg == 2 and head_dim == 128 and not causal and not pingpong


@gluon.jit
def _program_coords(heads_q, group, CAUSAL: gl.constexpr, KV_CTAS: gl.constexpr):
    """(query block, key part, batch * head, batch, head, KV head) of this CTA: KV_CTAS
    neighbouring CTAs share a query block, each taking every KV_CTAS-th KV tile."""
    pid_m = gl.program_id(0) // KV_CTAS
    if CAUSAL:
        # Later query blocks see more keys: launch them first so the tail is short. Within
        # each head only: the persistent kernels' longest-first order across half-L2 chunks
        # of heads (``_tile_coords`` as of v49) ran D=128 / D=64 S=512 causal 8-18% and S=1k
        # 5% slower here, as the CTAs in flight then read K/V of many heads
        # (2026-11-27-h100-short-causal/6-order/).
        pid_m = gl.num_programs(0) // KV_CTAS - 1 - pid_m
    pid_bh = gl.program_id(1)
    off_h = pid_bh % heads_q
    return pid_m, gl.program_id(0) % KV_CTAS, pid_bh, pid_bh // heads_q, off_h, off_h // group


@gluon.jit
def _part_ptrs(PARTS, slot, o, row_layout: gl.constexpr, BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Pointers to one key part's (o, m, l) in the merge workspace: fp32 rows of the build's
    D + 2; o's, a tuple over O's parts (``o_parts``)."""
    BUILD: gl.constexpr = _build(HEAD_DIM)
    base = PARTS + slot.to(gl.int64) * (BLOCK_M * (BUILD + 2))
    m_ptrs = base + BLOCK_M * BUILD + gl.arange(0, BLOCK_M, layout=row_layout)
    o_ptrs = (_o_ptrs(base, o[0], 0, BLOCK_M, BUILD, HEAD_DIM),)
    if len(o) == 2:
        o_ptrs = (o_ptrs[0], _o_ptrs(base, o[1], 1, BLOCK_M, BUILD, HEAD_DIM))
    return o_ptrs, m_ptrs, m_ptrs + BLOCK_M


@gluon.jit
def _o_ptrs(base, o, i: gl.constexpr, BLOCK_M: gl.constexpr, BUILD: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Pointers to part i of O (``o``: that part) in a workspace slot at ``base``."""
    START: gl.constexpr = o_parts(HEAD_DIM)[i][0]
    rows = gl.arange(0, BLOCK_M, layout=gl.SliceLayout(1, o.type.layout))
    cols = START + gl.arange(0, o.type.shape[1], layout=gl.SliceLayout(0, o.type.layout))
    return base + gl.expand_dims(rows, 1) * BUILD + gl.expand_dims(cols, 0)


@gluon.jit
def _store_o(ptrs, o):
    for i in gl.static_range(len(o)):
        gl.store(ptrs[i], o[i])


@gluon.jit
def _load_o(ptrs):
    """O's parts from the workspace (L2: .cg), in the pointers' layouts."""
    o = (gl.load(ptrs[0], cache_modifier=".cg"),)
    if len(ptrs) == 2:
        o = (o[0], gl.load(ptrs[1], cache_modifier=".cg"))
    return o


@gluon.jit
def _store_state(PARTS, slot, o, l_i, m_i, BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr):
    """One part's (o, m, l) into workspace slot ``slot`` (``_part_ptrs``)."""
    row_layout: gl.constexpr = m_i.type.layout
    o_ptrs, m_ptrs, l_ptrs = _part_ptrs(PARTS, slot, o, row_layout, BLOCK_M, HEAD_DIM)
    _store_o(o_ptrs, o)
    gl.store(m_ptrs, m_i)
    gl.store(l_ptrs, l_i)


@gluon.jit
def _merge_ctas(o, l_i, m_i, PARTS, TICKETS, item, part, BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr,
                KV_CTAS: gl.constexpr):
    """Publish this CTA's softmax state of its key part; the last of the query block's
    KV_CTAS CTAs to arrive merges all of them. Returns (is_last, o, l, m), merged in the
    last one. Its ticket is left at 0 for the next launch on the stream.

    As the portable kernel's split: every thread's stores come before the CTA barrier,
    and the barrier before the ticket's release (acq_rel, gpu scope); the last CTA reads
    the parts from L2 (.cg) after the ticket's acquire. It reads its own part back too
    and folds them in part order, so the result does not depend on which CTA came last."""
    row_layout: gl.constexpr = m_i.type.layout
    is_last = _publish(o, l_i, m_i, PARTS, TICKETS, item, part, BLOCK_M, HEAD_DIM, KV_CTAS)
    if is_last:
        o_ptrs, m_ptrs, l_ptrs = _part_ptrs(PARTS, item * KV_CTAS, o, row_layout, BLOCK_M, HEAD_DIM)
        o = _load_o(o_ptrs)
        m_i = gl.load(m_ptrs, cache_modifier=".cg")
        l_i = gl.load(l_ptrs, cache_modifier=".cg")
        for i in gl.static_range(1, KV_CTAS):
            o_ptrs, m_ptrs, l_ptrs = _part_ptrs(PARTS, item * KV_CTAS + i, o, row_layout, BLOCK_M, HEAD_DIM)
            o, l_i, m_i = _merge(o, l_i, m_i, _load_o(o_ptrs), gl.load(l_ptrs, cache_modifier=".cg"),
                                 gl.load(m_ptrs, cache_modifier=".cg"))
        gl.atomic_xchg(TICKETS + item, 0, sem="relaxed", scope="gpu")
    return is_last, o, l_i, m_i


# Columns of O that the column-block merge holds at a time (32 registers a thread).
MERGE_COLUMNS: gl.constexpr = gl.constexpr(64)


@gluon.jit
def _publish(o, l_i, m_i, PARTS, TICKETS, item, part, BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr,
             KV_CTAS: gl.constexpr):
    """Publish this CTA's softmax state of its key part (see ``_merge_ctas``); True in the
    last of the query block's KV_CTAS CTAs to arrive, which resets the ticket once merged."""
    _store_state(PARTS, item * KV_CTAS + part, o, l_i, m_i, BLOCK_M, HEAD_DIM)
    gl.thread_barrier()
    return gl.atomic_add(TICKETS + item, 1, sem="acq_rel", scope="gpu") == KV_CTAS - 1


@gluon.jit
def _merge_ctas_by_columns(o, l_i, m_i, PARTS, TICKETS, item, part, o_smem, desc_o, LSE, off_b, off_h, m0,
                           pid_bh, seq_q, NUM_WARPS: gl.constexpr, HEAD_DIM: gl.constexpr, KV_CTAS: gl.constexpr):
    """``_merge_ctas`` and ``_store_out`` for O wider than 128 columns: the last CTA holds
    MERGE_COLUMNS of O at a time, never a whole second O (at D=256 that is 128 registers
    a thread more, and the register merge spilled 248 B). Each CTA publishes its whole
    state; the last one weighs the parts' rows once (their maxima and sums are row
    vectors), then sums each column block over the parts in part order, as
    ``_merge_ctas`` does, into Q's buffer (Q is dead), and stores O by TMA."""
    BLOCK_M: gl.constexpr = 16 * NUM_WARPS
    BUILD: gl.constexpr = _build(HEAD_DIM)
    SLOT: gl.constexpr = BLOCK_M * (BUILD + 2)
    if _publish(o, l_i, m_i, PARTS, TICKETS, item, part, BLOCK_M, HEAD_DIM, KV_CTAS):
        gl.atomic_xchg(TICKETS + item, 0, sem="relaxed", scope="gpu")  # for the next launch: the parts are published
        # 16-byte loads along a row; a warp covers 2 rows of 64 columns.
        layout: gl.constexpr = gl.BlockedLayout([1, 4], [2, 16], [NUM_WARPS, 1], [1, 0])
        row_layout: gl.constexpr = gl.SliceLayout(1, layout)
        rows = gl.arange(0, BLOCK_M, layout=row_layout)
        base = PARTS + (item * KV_CTAS).to(gl.int64) * SLOT
        m_max = gl.full([BLOCK_M], float("-inf"), gl.float32, row_layout)
        for i in gl.static_range(KV_CTAS):
            m_max = gl.maximum(m_max, gl.load(base + i * SLOT + BLOCK_M * BUILD + rows, cache_modifier=".cg"))
        m_sub = gl.where(m_max == float("-inf"), 0.0, m_max)  # rows that saw no key in any part
        l_sum = gl.zeros([BLOCK_M], gl.float32, row_layout)
        for i in gl.static_range(KV_CTAS):
            m_ptrs = base + i * SLOT + BLOCK_M * BUILD + rows
            weight = gl.exp2(gl.load(m_ptrs, cache_modifier=".cg") - m_sub)
            l_sum += weight * gl.load(m_ptrs + BLOCK_M, cache_modifier=".cg")
        lse, inv_l = _lse_and_inverse(l_sum, m_max)
        offs_m = m0 + rows
        gl.store(LSE + pid_bh.to(gl.int64) * seq_q + offs_m, lse, mask=offs_m < seq_q)
        o2d = o_smem.reshape([BLOCK_M, BUILD])
        cols = gl.arange(0, MERGE_COLUMNS, layout=gl.SliceLayout(0, layout))
        tile = gl.expand_dims(rows, 1) * BUILD + gl.expand_dims(cols, 0)
        # Columns past HEAD_DIM (never written where O runs in parts) are past D: the TMA
        # store leaves them out.
        for c in gl.static_range(0, HEAD_DIM, MERGE_COLUMNS):
            acc = gl.zeros([BLOCK_M, MERGE_COLUMNS], gl.float32, layout)
            for i in gl.static_range(KV_CTAS):
                m_ptrs = base + i * SLOT + BLOCK_M * BUILD + rows
                weight = gl.exp2(gl.load(m_ptrs, cache_modifier=".cg") - m_sub) * inv_l
                acc += gl.expand_dims(weight, 1) * gl.load(base + i * SLOT + c + tile, cache_modifier=".cg")
            o2d.slice(c, MERGE_COLUMNS, 1).store(acc.to(desc_o.dtype))
        fence_async_shared()
        gl.thread_barrier()
        tma.async_copy_shared_to_global(desc_o, [off_b, off_h, m0, 0], o_smem)
        tma.store_wait(0)


@gluon.jit
def _merge_pieces(o, l_i, m_i, PARTS, TICKETS, key, head, BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Stream-K: the two pieces of one query block's keys (``head``: this one starts the
    row), in two CTAs. The first to take the block's ticket publishes its (o, m, l) and
    is done; the second waits until it is published, merges it into its own and returns
    is_second = True to store the rows. Returns (is_second, o, l, m).

    One state crosses L2 per cut block (``_merge_ctas`` moves every part both ways). The
    ticket counts arrivals (+1) and the publication (+2, after the CTA barrier that
    follows every thread's stores): the second sees 1 (waits for 4) or 3. It leaves the
    ticket at 0 for the next launch. The wait never blocks on a CTA that has not started:
    the first has arrived, and publishes before anything else. The merge takes the
    pieces in row order, head first, so the bits do not depend on which came second."""
    row_layout: gl.constexpr = m_i.type.layout
    o_ptrs, m_ptrs, l_ptrs = _part_ptrs(PARTS, key, o, row_layout, BLOCK_M, HEAD_DIM)
    ticket = gl.atomic_add(TICKETS + key, 1, sem="acq_rel", scope="gpu")
    second = ticket != 0
    if second:
        state = ticket + 1
        while state < 4:
            state = gl.atomic_add(TICKETS + key, 0, sem="acquire", scope="gpu")
        if _wide_second_part(HEAD_DIM):
            m_w = gl.load(m_ptrs, cache_modifier=".cg")
            l_w = gl.load(l_ptrs, cache_modifier=".cg")
            o0, l_m, m_m = _merge_in_order((o[0],), l_i, m_i, (gl.load(o_ptrs[0], cache_modifier=".cg"),), l_w,
                                           m_w, head)
            o1, _, _ = _merge_in_order((o[1],), l_i, m_i, (gl.load(o_ptrs[1], cache_modifier=".cg"),), l_w, m_w,
                                       head)
            o, l_i, m_i = (o0[0], o1[0]), l_m, m_m
            gl.atomic_xchg(TICKETS + key, 0, sem="relaxed", scope="gpu")
        else:  # as before the wide parts' variant, so these builds' SASS stays as measured
            o_w = _load_o(o_ptrs)
            m_w = gl.load(m_ptrs, cache_modifier=".cg")
            l_w = gl.load(l_ptrs, cache_modifier=".cg")
            gl.atomic_xchg(TICKETS + key, 0, sem="relaxed", scope="gpu")
            if head:
                o, l_i, m_i = _merge(o, l_i, m_i, o_w, l_w, m_w)
            else:
                o, l_i, m_i = _merge(o_w, l_w, m_w, o, l_i, m_i)
    else:
        _store_o(o_ptrs, o)
        gl.store(m_ptrs, m_i)
        gl.store(l_ptrs, l_i)
        gl.thread_barrier()
        gl.atomic_add(TICKETS + key, 2, sem="release", scope="gpu")
    return second, o, l_i, m_i


@gluon.jit
def _merge_plan_pieces(o, l_i, m_i, PARTS, TICKETS, plan, step, item, t0, t1, item_tiles, WG: gl.constexpr,
                       NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr, HEAD_DIM: gl.constexpr):
    """Causal stream-K: piece [t0, t1) of a cut item (``causal_plan``: its pieces run in
    CTAs cf .. cf + k - 1, in key order). Every piece publishes its (o, m, l) in its slot
    and adds its key tiles to the item's ticket, after the CTA barrier that follows its
    stores; the piece whose add completes the item's tile count folds the k states in key
    order (the bits do not depend on which piece came last), leaves the ticket at 0 for
    the next launch and returns is_last = True to store the rows. Returns (is_last, o, l, m)."""
    row_layout: gl.constexpr = m_i.type.layout
    _, _, cf0, k0, i1, _, cf1, k1 = plan
    first = step == 0  # the run's first piece: its item is row c's; else the run's last, row c + 1's
    cf = gl.where(first, cf0, cf1)
    k = gl.where(first, k0, k1)
    # The one piece of a run that ends inside its item (not the item's tail) takes the odd slot.
    slot = 2 * gl.program_id(0) + gl.where((item == i1) & (t1 < item_tiles), 1, 0)
    _store_state(PARTS, slot * NUM_WG + WG, o, l_i, m_i, BLOCK_M, HEAD_DIM)
    gl.thread_barrier()
    ticket = TICKETS + cf * NUM_WG + WG
    is_last = gl.atomic_add(ticket, t1 - t0, sem="acq_rel", scope="gpu") + (t1 - t0) == item_tiles
    if is_last:
        gl.atomic_xchg(ticket, 0, sem="relaxed", scope="gpu")
        o_ptrs, m_ptrs, l_ptrs = _part_ptrs(PARTS, (2 * cf + 1) * NUM_WG + WG, o, row_layout, BLOCK_M, HEAD_DIM)
        o = _load_o(o_ptrs)
        m_i = gl.load(m_ptrs, cache_modifier=".cg")
        l_i = gl.load(l_ptrs, cache_modifier=".cg")
        for p in range(1, k):
            piece = 2 * (cf + p) + gl.where(p < k - 1, 1, 0)
            o_ptrs, m_ptrs, l_ptrs = _part_ptrs(PARTS, piece * NUM_WG + WG, o, row_layout, BLOCK_M, HEAD_DIM)
            o, l_i, m_i = _merge(o, l_i, m_i, _load_o(o_ptrs), gl.load(l_ptrs, cache_modifier=".cg"),
                                 gl.load(m_ptrs, cache_modifier=".cg"))
    return is_last, o, l_i, m_i


@gluon.jit
def _gluon_fwd_kernel(
    desc_q, desc_k, desc_v, desc_o, LSE, PARTS, TICKETS,
    qk_scale, heads_q, group, seq_q, seq_k,
    HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
    STAGES: gl.constexpr, CAUSAL: gl.constexpr, KV_CTAS: gl.constexpr, LAZY_RESCALE: gl.constexpr,
    num_warps: gl.constexpr,
):
    """Stage 1: every warp computes; the same warps issue the TMA refills. With KV_CTAS > 1
    that many CTAs share each query block, CTA p taking key tiles p, p + KV_CTAS, ...,
    and merge through ``PARTS`` (fp32 workspace) and ``TICKETS`` (a zeroed counter per
    block); otherwise neither is touched."""
    _grid_wait()
    pid_m, part, pid_bh, off_b, off_h, off_hkv = _program_coords(heads_q, group, CAUSAL, KV_CTAS)
    m0 = pid_m * BLOCK_M
    n_tiles, _ = _kv_bounds(m0, seq_k - seq_q, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    if KV_CTAS > 1:
        # Every part visits a tile (past the horizon or past Sk it is wholly masked), so
        # each ends with a finite state for the merge.
        n_tiles = gl.cdiv(gl.maximum(n_tiles, KV_CTAS) - part, KV_CTAS)

    dtype: gl.constexpr = desc_q.dtype
    q_smem = gl.allocate_shared_memory(dtype, desc_q.block_type.shape, desc_q.layout)
    k_smem = gl.allocate_shared_memory(dtype, [STAGES] + desc_k.block_type.shape, desc_k.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES] + desc_v.block_type.shape, desc_v.layout)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_bars = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_bars.index(i), count=1)
        mbarrier.init(v_bars.index(i), count=1)
    fence_async_shared()

    mbarrier.expect(q_bar, desc_q.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_q, [off_b, off_h, m0, 0], q_bar, q_smem)
    for i in gl.static_range(STAGES):
        _issue(desc_k, k_smem, k_bars, i, n_tiles, off_b, off_hkv, BLOCK_N, STAGES, part, KV_CTAS)
        _issue(desc_v, v_smem, v_bars, i, n_tiles, off_b, off_hkv, BLOCK_N, STAGES, part, KV_CTAS)
    o, l_i, m_i = _attend(q_smem, q_bar, 0, q_bar, k_smem, v_smem, k_bars, v_bars, k_bars, v_bars, q_bar,
                          desc_k, desc_v, qk_scale, off_b, off_hkv, m0, n_tiles, 0, 0, seq_q, seq_k,
                          num_warps, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, False, 0, 1, False, False,
                          LAZY_RESCALE, part, KV_CTAS)
    _grid_trigger()
    if KV_CTAS > 1:
        item = pid_bh * gl.cdiv(seq_q, BLOCK_M) + pid_m
        if _build(HEAD_DIM) > 128:
            _merge_ctas_by_columns(o, l_i, m_i, PARTS, TICKETS, item, part, q_smem, desc_o, LSE, off_b, off_h, m0,
                                   pid_bh, seq_q, num_warps, HEAD_DIM, KV_CTAS)
        else:
            is_last, o, l_i, m_i = _merge_ctas(o, l_i, m_i, PARTS, TICKETS, item, part, BLOCK_M, HEAD_DIM, KV_CTAS)
            if is_last:
                _store_out(o, l_i, m_i, q_smem, desc_o, LSE, off_b, off_h, m0, pid_bh, seq_q, num_warps, BLOCK_N,
                           HEAD_DIM, False)
    else:
        _store_out(o, l_i, m_i, q_smem, desc_o, LSE, off_b, off_h, m0, pid_bh, seq_q, num_warps, BLOCK_N, HEAD_DIM,
                   False)


@gluon.jit
def _tile_coords(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
                 ZIGZAG: gl.constexpr = False, LEAD: gl.constexpr = False):
    """(m0, pid_bh, off_b, off_h, off_hkv, n_tiles) of work item ``tile``.

    Full: the query blocks of one head are neighbours, so the CTAs in flight share
    each head's K/V through L2. Causal: longest first over chunks of heads, and the last
    ``chunk`` heads (``causal_chunk``; more where whole chunks must fill the rest) longest
    first together at the end (FA3's LPT order), so that the last waves end on short items.
    Before the tail the chunks are one KV group of query heads where the tail holds at
    most ``ONE_GROUP_TAIL`` KV heads (a KV head's K/V takes 2 MB or more), else ``chunk``
    heads. With chunks of ``chunk`` heads throughout (the leftover chunk first, before
    b309aa5), one D=128 B=4 H=16 S=4k causal launch read 346 MB from DRAM (Q, K and V are
    201 MB), one KV group at a time 304 MB, and under the power limit DRAM's energy is
    clock: alone, 1.005-1.023x as fast at D=128 S=4k-8k, GQA S=4k and D=64 S=8k, both
    dtypes. Where K/V is short it lost (D=64 S=2k 0.876, S=4k 0.994; at ncu's clocks too,
    with the least DRAM), and chunks of ``chunk`` heads read level there
    (2026-11-27-h100-q-split/, calls 4-10). It still loses there with the late draw
    (``_post_item``): 0.870, its warps stalled on instruction fetch 3.3 cycles an issue
    against 1.0 (2026-11-27-h100-late-draw/, calls 6, 10). Without persistence every
    CTA takes one item; persistent CTAs stride through them round robin.
    ZIGZAG (causal plans, one chunk): the longest and the shortest items left, in turn, so
    that every CTA's run of the plan holds a like mix of long and short items. LEAD
    (``leads``): the blocks start ``_causal_lead`` rows early, so that the last ends at row Sq."""
    heads_q, group, seq_q, seq_k, n_m, batch_heads, chunk = sched
    if CAUSAL and ZIGZAG:
        # A plan's order is one chunk of every head (``prepare``): no body to draw by groups.
        # Left to the general order below, the hoisted ONE_GROUP_TAIL * group of a GQA launch
        # spilled (20 B, D=40-64 pairs).
        tile = gl.where(tile % 2 == 0, tile // 2, n_m * batch_heads - 1 - tile // 2)
        pid_m = n_m - 1 - tile // batch_heads
        pid_bh = tile % batch_heads
    elif CAUSAL:
        w = gl.where(chunk <= ONE_GROUP_TAIL * group, group, chunk)  # heads drawn together before the tail
        body_heads = gl.maximum(batch_heads - chunk, 0) // w * w
        body = body_heads * n_m
        in_tail = tile >= body
        per_w = n_m * w
        first_bh = gl.where(in_tail, body_heads, tile // per_w * w)
        width = gl.where(in_tail, batch_heads - body_heads, w)
        r = gl.where(in_tail, tile - body, tile % per_w)
        pid_m = n_m - 1 - r // width
        pid_bh = first_bh + r % width
    else:
        pid_m = tile % n_m
        pid_bh = tile // n_m
    off_h = pid_bh % heads_q
    m0 = pid_m * BLOCK_M
    if LEAD:
        m0 -= _causal_lead(seq_q, n_m, BLOCK_M)
    n_tiles, _ = _kv_bounds(m0, seq_k - seq_q, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    return m0, pid_bh, pid_bh // heads_q, off_h, off_h // group, n_tiles


@gluon.jit
def _causal_lead(seq_q, n_m, BLOCK_M: gl.constexpr):
    """Rows by which a launch that ``leads`` starts its query blocks before row 0
    (``causal_plan.causal_lead``): the blocks' padding, in whole 64-row warpgroups."""
    return (n_m * BLOCK_M - seq_q) // 64 * 64


def leads(causal: bool, block_m: int, build: int) -> bool:
    """Whether causal query blocks end at row Sq rather than start at row 0, their padding
    (``causal_plan.causal_lead``) going to the first block, whose rows see the fewest keys:
    blocks of three warpgroups on the builds whose warpgroups skip the key tiles their rows
    do not see (``_skips_unseen``). At the bottom, a warpgroup of real rows beside warpgroups
    of padding walked every key tile alone, its softmax unhidden by a partner's GEMMs (S=4k:
    64 real rows of 192). Each alone for 600 ms against the same kernels without it
    (2026-11-27-h100-causal-lead/, v54): D=128 S=4k 1.010-1.018x, GQA S=4k 1.032, D=64 S=2k-16k
    1.004-1.017, D=128 S=2k / 8k / 16k 0.987-1.008. Two-warpgroup blocks walk every tile in
    both warpgroups wherever the padding is, and a lead of 64 rows on 128-key tiles gives each
    block's diagonal a second masked tile. The D=32 build (no skip) spilled 16 B with it."""
    return bool(causal) and block_m == 192 and build in (64, 128)


_leads = gluon.constexpr_function(leads)


@gluon.constexpr_function
def _tight_registers(persistent, num_wg):
    """Persistent with three consumer warpgroups (160 registers each): the one build where
    register pressure, not instruction count, decides, so the kernel trades instructions
    for fewer live values there (``_opaque`` copies of Sk and the item index). Since the
    v16 masks nothing spills without them, but the full S2k build (three stages) then runs
    4% slower (2026-11-23-h100-causal-mask/abo_noop.log); causal ties."""
    return bool(persistent) and num_wg == 3


@gluon.jit
def _opaque(x):
    """``x``, through a move the compiler must not look through or merge."""
    return gl.inline_asm_elementwise("mov.b32 $0, $1;", "=r,r", [x], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _next_item(tile, counter, total, DYNAMIC: gl.constexpr):
    """The work item after ``tile``: from the counter (items go to whichever CTA asks
    first, the hardware scheduler's rule; each CTA's first item is its program id) or,
    static, ``num_programs`` further on.

    Every CTA draws until it misses once, so the draws return 0 .. total - 1, each once
    (grid <= total): the one that returns total - 1 is the launch's last, and it zeroes
    the counter for the next launch on the stream."""
    if DYNAMIC:
        drawn = gl.atomic_add(counter, 1, sem="relaxed")
        gl.atomic_xchg(counter, 0, mask=drawn == total - 1, sem="relaxed")
        return gl.num_programs(0) + drawn
    return tile + gl.num_programs(0)


@gluon.jit
def _plan_rows(PLAN):
    """Causal stream-K: this CTA's plan row and the next (``causal_plan``): the run's first
    (item, tile) and the item there (cf, k), then the same where the next run starts."""
    row = PLAN + gl.program_id(0) * 4
    return (gl.load(row), gl.load(row + 1), gl.load(row + 2), gl.load(row + 3),
            gl.load(row + 4), gl.load(row + 5), gl.load(row + 6), gl.load(row + 7))


@gluon.jit
def _stream_k_plan(total, n_kv):
    """Stream-K schedule of a persistent CTA over full (unmasked) items of n_kv key tiles,
    worked out once per CTA (no division per item: on a consumer's serial path between
    items, the 64-bit form of this cost 2.5% of D=128 S=4k).

    First whole items, round robin, ``rounds`` of them (the static stride's order): all
    items when they fill the last wave, else one wave fewer than they fill. The rest,
    between one and two waves of items from item ``whole`` on, are cut in key tiles: every
    CTA takes an equal contiguous run [u0, u1) of their (item, tile) pairs, so no SM idles
    through a part-empty last wave. A run is longer than an item, so its first piece ends
    an item that the CTA before began and its last begins one that the next CTA ends: an
    item has at most two pieces (``_merge_pieces``). Returns (rounds, whole, u0, u1, the
    item u0 falls in); int32 holds it while cut items x n_kv < 2**31."""
    grid = gl.num_programs(0)
    pid = gl.program_id(0)
    rounds = gl.maximum(total // grid - (total % grid != 0).to(gl.int32), 0)
    whole = rounds * grid
    units = (total - whole) * n_kv
    per, extra = units // grid, units % grid
    u0 = pid * per + pid * extra // grid
    u1 = (pid + 1) * per + (pid + 1) * extra // grid
    return rounds, whole, u0, u1, u0 // n_kv


@gluon.jit
def _own_n_m(sched, BLOCK_M: gl.constexpr):
    """``sched`` with its query block count (carried in as seq_q) worked out here, from an
    opaque copy of Sq: the compiler would hoist what it derives from Sq (the block count,
    the sign word of the LSE offsets) back to the kernel's prologue."""
    heads_q, group, seq_q, seq_k, _, batch_heads, chunk = sched
    seq_q = _opaque(seq_q)
    return heads_q, group, seq_q, seq_k, gl.cdiv(seq_q, BLOCK_M), batch_heads, chunk


@gluon.jit
def _piece(step, plan, total, n_kv, CAUSAL: gl.constexpr):
    """The CTA's ``step``-th piece (``_stream_k_plan``, causal ``_plan_rows``): (item, t0,
    t1), key tiles [t0, t1) of work item ``item``; item >= total once the CTA is done.
    Causal, t1 is a bound that the item's own tile count clips (``_piece_tiles``)."""
    if CAUSAL:
        return _plan_piece(step, plan, total)
    rounds, whole, u0, u1, i0 = plan
    k = step - rounds
    item = i0 + gl.maximum(k, 0)
    start = gl.where(k == 0, u0, item * n_kv)
    in_dp = k < 0
    tile = gl.where(in_dp, gl.program_id(0) + step * gl.num_programs(0), gl.where(start < u1, whole + item, total))
    t0 = gl.where(in_dp, 0, start - item * n_kv)
    t1 = gl.where(in_dp, n_kv, gl.minimum((item + 1) * n_kv, u1) - item * n_kv)
    return tile, t0, t1


@gluon.jit
def _plan_piece(step, plan, total):
    """A causal plan's ``step``-th piece: items i0, i0 + 1, ... from tile s0 of the first,
    up to tile s1 of item i1 (exclusive; s1 = 0: item i1 is the next run's)."""
    i0, s0, _, _, i1, s1, _, _ = plan
    item = i0 + step
    at_end = item == i1
    done = (item > i1) | (at_end & (s1 == 0))
    tile = gl.where(done, total, item)
    return tile, gl.where(step == 0, s0, 0), gl.where(at_end, s1, 1 << 30)


@gluon.jit
def _piece_tiles(t0, t1, n_tiles, CAUSAL: gl.constexpr):
    """(t1, tiles) of piece [t0, t1) of an item of n_tiles key tiles; causal plans bound t1
    loosely (``_plan_piece``)."""
    if CAUSAL:
        t1 = gl.minimum(t1, n_tiles)
    return t1, t1 - t0


@gluon.jit
def _post_item(tile, posted, posted_bar, lap):
    """Dynamic schedule: hand the consumers their item of lap ``lap``, in slot lap % 2. The
    producer draws and posts lap L + 1 once the last K/V load of lap L is issued, STAGES key
    tiles before the consumers take it (before lap L's epilogue, ``_consume``), so neither
    the draw's atomic nor the item's coordinates sit between two items. Slot (L + 1) % 2 last
    held lap L - 1, which every consumer took before it released Q of lap L - 1, and Q of lap
    L waited for that release.

    Not earlier: v38 drew L + 1 as soon as Q of L was on its way, a whole item ahead, so
    the items of one head started as far apart as the lengths of the items their CTAs were
    still on. Each head's K/V then stayed in L2 longer and the longest-first order held
    less. Drawn late, D=128 B=4 H=16 S=4k causal read 212 MB from DRAM instead of 298 (201
    is Q, K and V once) and ran 1.03-1.06x as fast at D=128 causal S=2k-16k (bf16 and fp16,
    each alone for 800 ms); D=64 S=2k / 8k and GQA 32/8 level to +0.8%, the 128x128 builds
    at D=80-96 ~1% behind within their spread, and a draw one key tile earlier no better
    there (2026-11-27-h100-late-draw/, calls 1-2, 7-8)."""
    one: gl.constexpr = gl.BlockedLayout([1], [32], [1], [0])
    posted.index(lap % 2).store(gl.full([1], tile, gl.int32, one))
    mbarrier.arrive(posted_bar.index(lap % 2))


@gluon.jit
def _take_item(posted, posted_bar, lap):
    mbarrier.wait(posted_bar.index(lap % 2), (lap // 2) & 1)
    return gl.max(posted.index(lap % 2).load(gl.BlockedLayout([1], [32], [4], [0])), 0)


@gluon.jit
def _load_kv(ring, t, slot, phase, off_b, off_hkv, BLOCK_N: gl.constexpr):
    """Producer: once ring slot ``slot`` is free (its empty barriers pass ``phase``), start
    the copies of K and V tile t into it."""
    desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty = ring
    mbarrier.wait(k_empty.index(slot), phase)
    mbarrier.expect(k_ready.index(slot), desc_k.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_k, [off_b, off_hkv, t * BLOCK_N, 0], k_ready.index(slot),
                                    k_smem.index(slot))
    mbarrier.wait(v_empty.index(slot), phase)
    mbarrier.expect(v_ready.index(slot), desc_v.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_v, [off_b, off_hkv, t * BLOCK_N, 0], v_ready.index(slot),
                                    v_smem.index(slot))


@gluon.jit
def _ws_producer(loads, sched, WG_M: gl.constexpr, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr,
                 BLOCK_N: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr, DYNAMIC: gl.constexpr,
                 STREAM_K: gl.constexpr):
    """One warp of TMA: per work item, Q's NUM_WG sub-tiles once their buffers are free,
    then K_t and V_t as soon as their slots free up. Ring entries (and so slot phases)
    run on across the items of a persistent CTA. Empty barriers start in phase 0, so
    waiting on parity 1 passes for the first lap. With a dynamic schedule the producer
    also draws the items and posts each to the consumers once the item before it has its
    K/V loads issued (``_post_item``), the last post an end mark (>= total).
    STREAM_K: the CTA's pieces of items instead (``_piece``)."""
    (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bars, q_empty, k_ready, v_ready, k_empty, v_empty,
     posted, posted_bar, counter, PLAN) = loads
    _grid_wait()
    if STREAM_K:
        sched = _own_n_m(sched, BLOCK_M)
    kv = (desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty)
    total = sched[4] * sched[5]
    ring = 0
    lap = 0
    tile = gl.program_id(0)
    first = 0
    if STREAM_K:
        step = 0
        n_kv = gl.maximum(gl.cdiv(_opaque(sched[3]), BLOCK_N), 1)
        plan = _plan_rows(PLAN) if CAUSAL else _stream_k_plan(total, n_kv)
        tile, first, last = _piece(step, plan, total, n_kv, CAUSAL)
    if DYNAMIC:
        _post_item(tile, posted, posted_bar, 0)
    LEAD: gl.constexpr = _leads(CAUSAL, BLOCK_M, desc_q.block_type.shape[3])  # the build's columns
    while tile < total:
        m0, _, off_b, off_h, off_hkv, n_tiles = _tile_coords(tile, sched, BLOCK_M, BLOCK_N, CAUSAL, STREAM_K, LEAD)
        if STREAM_K:
            _, n_tiles = _piece_tiles(first, last, n_tiles, CAUSAL)
        for w in gl.static_range(NUM_WG):
            mbarrier.wait(q_empty.index(w), (lap & 1) ^ 1)
            mbarrier.expect(q_bars.index(w), desc_q.block_type.nbytes)
            row = m0 + w * WG_M
            if LEAD:
                # A lead's rows load rows from 0 instead: a negative TMA coordinate faulted
                # (illegal instruction), and the mask hides every key from them.
                row = gl.maximum(row, 0)
            tma.async_copy_global_to_shared(desc_q, [off_b, off_h, row, 0], q_bars.index(w), q_smem.index(w))
        for t in range(n_tiles):
            _load_kv(kv, first + t, (ring + t) % STAGES, (((ring + t) // STAGES) & 1) ^ 1, off_b, off_hkv,
                     BLOCK_N)
        if DYNAMIC:
            nxt = _next_item(tile, counter, total, DYNAMIC)
            _post_item(nxt, posted, posted_bar, lap + 1)
        ring += n_tiles
        lap += 1
        if STREAM_K:
            step += 1
            tile, first, last = _piece(step, plan, total, n_kv, CAUSAL)
        elif DYNAMIC:
            tile = nxt
        else:
            tile = _next_item(tile, counter, total, DYNAMIC)


@gluon.jit
def _ws_consumer(WG: gl.constexpr, shared, sched, WG_M: gl.constexpr, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr,
                 BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
                 PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr, DYNAMIC: gl.constexpr, LAZY: gl.constexpr,
                 STREAM_K: gl.constexpr):
    """One warpgroup, 64 query rows of each work item (STREAM_K: of each piece); every warpgroup walks every KV
    tile of the item (each must release every slot, and take every ping-pong turn),
    the lower ones masking what they cannot see (causal, three warpgroups: handing the tiles
    past their rows back without GEMMs, ``_own_tiles``). ``shared``/``sched``: the kernel's
    runtime values, as tuples. An item takes n_tiles ring entries and n_tiles + 1
    turns, so after ``lap`` items the turn count is ring + lap."""
    _grid_wait()
    _first_turn(WG, NUM_WG, PINGPONG)
    if STREAM_K:
        sched = _own_n_m(sched, BLOCK_M)
    LEAD: gl.constexpr = _leads(CAUSAL, BLOCK_M, _build(HEAD_DIM))
    if PERSISTENT:
        total = sched[4] * sched[5]
        ring = 0
        lap = 0
        # The consumer's piece count is its lap (STREAM_K); plan and n_kv are unused otherwise.
        if STREAM_K:
            n_kv = gl.maximum(gl.cdiv(_opaque(sched[3]), BLOCK_N), 1)
            plan = _plan_rows(shared[20]) if CAUSAL else _stream_k_plan(total, n_kv)
        else:
            n_kv = 1
            plan = (0, 0, 0, 0, 0)
        work = _work_item(0, gl.program_id(0), shared, plan, total, n_kv, CAUSAL, DYNAMIC, STREAM_K)
        coords = _tile_coords(work[0], sched, BLOCK_M, BLOCK_N, CAUSAL, STREAM_K, LEAD)
        while work[0] < total:
            n_tiles, work, coords = _consume(WG, work, coords, ring, lap, shared, sched, plan, total, n_kv, WG_M,
                                             NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                                             PERSISTENT, DYNAMIC, LAZY, STREAM_K)
            ring += n_tiles
            lap += 1
        tma.store_wait(0)
    else:
        work = (gl.program_id(0), 0, 0)
        _consume(WG, work, _tile_coords(work[0], sched, BLOCK_M, BLOCK_N, CAUSAL, False, LEAD), 0, 0, shared, sched,
                 (0, 0, 0, 0, 0), 0, 1, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                 PERSISTENT, False, LAZY, False)


@gluon.jit
def _work_item(lap, tile, shared, plan, total, n_kv, CAUSAL: gl.constexpr, DYNAMIC: gl.constexpr,
               STREAM_K: gl.constexpr):
    """(tile, t0, t1) of a persistent consumer's lap ``lap`` (``tile``: its previous item, or
    its program id for lap 0): posted by the producer (DYNAMIC), the CTA's next stream-K piece
    (key tiles [t0, t1)), or the static stride's next item."""
    if DYNAMIC:
        return _take_item(shared[16], shared[17], lap), 0, 0
    elif STREAM_K:
        return _piece(lap, plan, total, n_kv, CAUSAL)
    else:
        return gl.where(lap == 0, tile, tile + gl.num_programs(0)), 0, 0


@gluon.jit
def _consume(WG: gl.constexpr, work, coords, ring, lap, shared, sched, plan, total, n_kv, WG_M: gl.constexpr,
             NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr,
             STAGES: gl.constexpr, CAUSAL: gl.constexpr, PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr,
             DYNAMIC: gl.constexpr, LAZY: gl.constexpr, STREAM_K: gl.constexpr):
    """Work item ``work`` = (tile, t0, t1) for consumer WG (STREAM_K: its key tiles [t0, t1)),
    at ``coords`` (``_tile_coords``); returns the KV tile count and, persistent, the next
    item and its coordinates, worked out before this item's epilogue: between items, the
    tensor cores wait on this warpgroup's serial path, and taking the next item and its
    divisions then overlap the epilogue's own latencies. A piece short of the whole row is
    merged with the item's other piece (``_merge_pieces``: a ticket and a workspace slot per
    warpgroup's rows), and whichever of the two CTAs comes second stores the rows."""
    (q_smem, o_smem, q_bars, q_empty, turns, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, desc_k, desc_v,
     desc_o, LSE, qk_scale, _, _, PARTS, TICKETS, _) = shared
    tile, t0, t1 = work
    m0, pid_bh, off_b, off_h, off_hkv, n_tiles = coords
    LEAD: gl.constexpr = _leads(CAUSAL, BLOCK_M, _build(HEAD_DIM))
    if STREAM_K:
        item_tiles = n_tiles
        t1, n_tiles = _piece_tiles(t0, t1, n_tiles, CAUSAL)
        store = (t0 == 0) & (t1 == item_tiles)  # the whole row: no merge
    seq_k = sched[3]
    if _tight_registers(PERSISTENT, NUM_WG):
        # Sk and, after the loop, the epilogue's coordinates come from opaque copies, so the
        # compiler cannot hoist values out of the item loop and keep them live through it.
        seq_k = _opaque(seq_k)
    o, l_i, m_i = _attend(q_smem.index(WG), q_bars.index(WG), lap & 1, q_empty.index(WG), k_smem, v_smem,
                          k_ready, v_ready, k_empty, v_empty, turns, desc_k, desc_v, qk_scale, off_b, off_hkv,
                          m0 + WG * WG_M, n_tiles, ring, ring + lap, sched[2], seq_k,
                          4, WG_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, True, WG, NUM_WG, PINGPONG, PERSISTENT, LAZY,
                          t0, 1, 0, True, STREAM_K)
    if _tight_registers(PERSISTENT, NUM_WG):
        m0, pid_bh, off_b, off_h, _, _ = _tile_coords(_opaque(tile), sched, BLOCK_M, BLOCK_N, CAUSAL, STREAM_K, LEAD)
    if PERSISTENT:
        if STREAM_K and not CAUSAL and _wide_second_part(HEAD_DIM):
            # Worked out again from an opaque Sk rather than held through the loop (see
            # ``_wide_second_part``).
            n_kv = gl.maximum(gl.cdiv(_opaque(sched[3]), BLOCK_N), 1)
        work = _work_item(lap + 1, tile, shared, plan, total, n_kv, CAUSAL, DYNAMIC, STREAM_K)
        coords = _tile_coords(work[0], sched, BLOCK_M, BLOCK_N, CAUSAL, STREAM_K, LEAD)
    if STREAM_K:
        if not store:
            if CAUSAL:
                store, o, l_i, m_i = _merge_plan_pieces(o, l_i, m_i, PARTS, TICKETS, plan, lap, tile, t0, t1,
                                                        item_tiles, WG, NUM_WG, WG_M, HEAD_DIM)
            else:
                grid = gl.num_programs(0)
                key = (tile - (total // grid - 1) * grid) * NUM_WG + WG  # cut items start a wave before the end
                store, o, l_i, m_i = _merge_pieces(o, l_i, m_i, PARTS, TICKETS, key, t0 == 0, WG_M, HEAD_DIM)
        if store:
            # Through an opaque index: the compiler would hoist the buffer's addresses out
            # of the item loop and, at D=64, spill them.
            o_buf = o_smem.index(_opaque(tile * 0 + WG))
            _store_out(o, l_i, m_i, o_buf, desc_o, LSE, off_b, off_h, m0 + WG * WG_M, pid_bh, sched[2],
                       4, BLOCK_N, HEAD_DIM, PERSISTENT, LEAD)
    else:
        _store_out(o, l_i, m_i, o_smem.index(WG), desc_o, LSE, off_b, off_h, m0 + WG * WG_M, pid_bh, sched[2],
                   4, BLOCK_N, HEAD_DIM, PERSISTENT, LEAD)
    return n_tiles, work, coords


@gluon.jit
def _gluon_fwd_ws_kernel(
    desc_q, desc_k, desc_v, desc_o, LSE,
    qk_scale, heads_q, group, seq_q, seq_k, batch_heads, chunk, counter, parts, plan,
    HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
    STAGES: gl.constexpr, CAUSAL: gl.constexpr, PINGPONG: gl.constexpr, PERSISTENT: gl.constexpr,
    STREAM_K: gl.constexpr, LAZY_RESCALE: gl.constexpr, CONSUMER_REGS: gl.constexpr, num_warps: gl.constexpr,
):
    """FA3's split: a TMA producer warp and BLOCK_M / 64 consumer warpgroups of 64 rows
    each (the Q/O descriptors' blocks are those sub-tiles, [1, 1, 64, D]), synchronised
    by full/empty mbarrier pairs per ring slot (empty counts every consumer). The first
    consumer is the default partition (num_warps=4), the others are workers.

    A 1-D grid over work items (query block x head, ordered by ``_tile_coords``): one
    item per CTA, or, PERSISTENT, one CTA per SM working through them, which overlaps
    an item's prologue (Q and the first K/V tiles) and epilogue (the O store) with its
    neighbours' GEMMs; O then gets its own buffer. Full items are alike, so persistent
    CTAs stride through them; causal ones differ in length, and a static stride left
    the SMs unevenly loaded (S >= 2k ran 5-10% slower than one CTA per item), so the
    producer draws them from ``counter`` as CTAs free up (the launch leaves it zeroed).
    STREAM_K (persistent): full items that would leave the last wave part-empty are cut in
    key tiles, evenly over the CTAs (``_piece``); their two pieces merge through ``parts``
    (fp32) and ``counter`` (a zeroed ticket per item and warpgroup). Causal, each CTA runs
    its rows of ``plan`` (``causal_plan``) instead, items in ZIGZAG order."""
    _grid_wait()
    _grid_trigger()  # one CTA per SM fills its registers: the next grid's CTAs wait for whole SMs
    DYNAMIC: gl.constexpr = PERSISTENT and CAUSAL and not STREAM_K
    gl.static_assert(not STREAM_K or PERSISTENT, "stream-K cuts the items of persistent CTAs")
    WG_M: gl.constexpr = desc_q.block_type.shape[2]
    NUM_WG: gl.constexpr = BLOCK_M // WG_M
    gl.static_assert(NUM_WG == 2 or NUM_WG == 3, "2 or 3 consumer warpgroups")

    dtype: gl.constexpr = desc_q.dtype
    q_smem = gl.allocate_shared_memory(dtype, [NUM_WG] + desc_q.block_type.shape, desc_q.layout)
    if PERSISTENT:
        o_smem = gl.allocate_shared_memory(dtype, [NUM_WG] + desc_o.block_type.shape, desc_o.layout)
    else:
        o_smem = q_smem
    k_smem = gl.allocate_shared_memory(dtype, [STAGES] + desc_k.block_type.shape, desc_k.layout)
    v_smem = gl.allocate_shared_memory(dtype, [STAGES] + desc_v.block_type.shape, desc_v.layout)
    q_bars = gl.allocate_shared_memory(gl.int64, [NUM_WG, 1], mbarrier.MBarrierLayout())
    q_empty = gl.allocate_shared_memory(gl.int64, [NUM_WG, 1], mbarrier.MBarrierLayout())
    turns = gl.allocate_shared_memory(gl.int64, [NUM_WG, 1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [STAGES, 1], mbarrier.MBarrierLayout())
    posted = gl.allocate_shared_memory(gl.int32, [2, 1], gl.SwizzledSharedLayout(1, 1, 1, [0]))
    posted_bar = gl.allocate_shared_memory(gl.int64, [2, 1], mbarrier.MBarrierLayout())
    for i in gl.static_range(2):
        mbarrier.init(posted_bar.index(i), count=1)
    for i in gl.static_range(NUM_WG):
        mbarrier.init(q_bars.index(i), count=1)
        mbarrier.init(q_empty.index(i), count=1)
        mbarrier.init(turns.index(i), count=1)
    for i in gl.static_range(STAGES):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=NUM_WG)
        mbarrier.init(v_empty.index(i), count=NUM_WG)
    fence_async_shared()

    # A tuple kernel variable holds runtime values only (constexprs would turn into
    # tensors), so each partition's constexprs follow its tuples one by one.
    # A stream-K build works the query block count out in each partition (``_own_n_m``):
    # carried in, it was the one value the partitions' entry spilled (16 B at D=128).
    n_m = seq_q if STREAM_K else gl.cdiv(seq_q, BLOCK_M)
    sched = (heads_q, group, seq_q, seq_k, n_m, batch_heads, chunk)
    shared = (q_smem, o_smem, q_bars, q_empty, turns, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, desc_k,
              desc_v, desc_o, LSE, qk_scale, posted, posted_bar, parts, counter, plan)
    loads = (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bars, q_empty, k_ready, v_ready, k_empty, v_empty,
             posted, posted_bar, counter, plan)
    # The partition list is syntax (a kernel value cannot hold a function): one call per
    # consumer count.
    if NUM_WG == 2:
        gl.warp_specialize([
            (_ws_consumer, (0, shared, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                            PERSISTENT, DYNAMIC, LAZY_RESCALE, STREAM_K)),
            (_ws_consumer, (1, shared, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                            PERSISTENT, DYNAMIC, LAZY_RESCALE, STREAM_K)),
            (_ws_producer, (loads, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, STAGES, CAUSAL, DYNAMIC, STREAM_K)),
        ], [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
    else:
        gl.warp_specialize([
            (_ws_consumer, (0, shared, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                            PERSISTENT, DYNAMIC, LAZY_RESCALE, STREAM_K)),
            (_ws_consumer, (1, shared, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                            PERSISTENT, DYNAMIC, LAZY_RESCALE, STREAM_K)),
            (_ws_consumer, (2, shared, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, PINGPONG,
                            PERSISTENT, DYNAMIC, LAZY_RESCALE, STREAM_K)),
            (_ws_producer, (loads, sched, WG_M, NUM_WG, BLOCK_M, BLOCK_N, STAGES, CAUSAL, DYNAMIC, STREAM_K)),
        ], [4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, PRODUCER_REGS])


@gluon.jit
def _split_visits(n_tiles, NUM_WG: gl.constexpr):
    """KV tiles the producer loads for a query block whose keys are split between NUM_WG
    warpgroups: every warpgroup takes at least one (tiles past n_tiles are wholly masked:
    past the causal horizon or, zero-filled, past Sk), so each ends with a finite state."""
    return gl.maximum(n_tiles, NUM_WG)


@gluon.jit
def _split_producer(loads, sched, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
                    STAGES: gl.constexpr, CAUSAL: gl.constexpr):
    """One warp of TMA for one query block: Q once, then the KV tiles in key order, tile t
    into the ring of warpgroup t % NUM_WG (its entry t // NUM_WG)."""
    desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, k_empty, v_empty = loads
    _grid_wait()
    kv = (desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty)
    m0, _, off_b, off_h, off_hkv, n_tiles = _tile_coords(gl.program_id(0), sched, BLOCK_M, BLOCK_N, CAUSAL)
    mbarrier.expect(q_bar, desc_q.block_type.nbytes)
    tma.async_copy_global_to_shared(desc_q, [off_b, off_h, m0, 0], q_bar, q_smem)
    for t in range(_split_visits(n_tiles, NUM_WG)):
        entry = t // NUM_WG
        _load_kv(kv, t, t % NUM_WG * STAGES + entry % STAGES, ((entry // STAGES) & 1) ^ 1, off_b, off_hkv,
                 BLOCK_N)


@gluon.constexpr_function
def _wide_second_part(head_dim):
    """Where O's second part is 32 columns or more (D=96: 64 + 32), the stream-K merge takes
    the other piece's O a part at a time and the next piece's tile count is worked out
    again after the loop: with both states whole in registers and the count held through
    the KV loop, D=96's 192x64 build spilled 192 B (offline, sm_90a; 0 with both). Elsewhere
    the same change moved ptxas's allocation (D=80's loops 4-7 instructions longer), so
    those builds keep the whole-state merge."""
    parts = o_parts(head_dim)
    return len(parts) == 2 and parts[1][1] >= 32


@gluon.jit
def _merge_in_order(o, l_i, m_i, o_w, l_w, m_w, head):
    """``_merge`` with this piece's state first where it heads the row (``head``), else second."""
    if head:
        o, l_i, m_i = _merge(o, l_i, m_i, o_w, l_w, m_w)
    else:
        o, l_i, m_i = _merge(o_w, l_w, m_w, o, l_i, m_i)
    return o, l_i, m_i


@gluon.jit
def _merge(o, l_i, m_i, o_w, l_w, m_w):
    """Two online-softmax states of the same rows (log2 domain) as one (O: its parts)."""
    m_new = gl.maximum(m_i, m_w)
    m_sub = gl.where(m_new == float("-inf"), 0.0, m_new)  # rows that saw no key in either
    a = gl.exp2(m_i - m_sub)
    b = gl.exp2(m_w - m_sub)
    o_a, o_b = _scaled(o, a), _scaled(o_w, b)
    o = (o_a[0] + o_b[0],)
    if len(o_a) == 2:
        o = (o[0], o_a[1] + o_b[1])
    return o, l_i * a + l_w * b, m_new


def stash_rows(split_kv: int, block_m: int) -> int:
    """Rows of the merge buffers: block_m per warpgroup after the first, rounded up to a
    power of two (Gluon's shapes must be)."""
    return block_m * (1 << (split_kv - 2).bit_length())


_stash_rows = gluon.constexpr_function(stash_rows)


@gluon.jit
def _stash(buf, WG: gl.constexpr, BLOCK_M: gl.constexpr):
    """Warpgroup WG's rows of a merge buffer (warpgroup 0 keeps its state in registers)."""
    return buf.slice((WG - 1) * BLOCK_M, BLOCK_M)


@gluon.jit
def _unstash_o(rows, o, HEAD_DIM: gl.constexpr):
    """O's parts from a warpgroup's rows of the merge buffer, in o's layouts."""
    out = (_columns(rows, 0, HEAD_DIM).load(o[0].type.layout),)
    if len(o) == 2:
        out = (out[0], _columns(rows, 1, HEAD_DIM).load(o[1].type.layout))
    return out


@gluon.jit
def _split_consumer(WG: gl.constexpr, shared, sched, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr,
                    BLOCK_N: gl.constexpr, HEAD_DIM: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr,
                    LAZY: gl.constexpr):
    """Warpgroup WG of NUM_WG on the same 64 query rows: key tiles WG, WG + NUM_WG, ...
    from its own ring. The others leave their (o, l, m) in shared memory; warpgroup 0
    merges them into its own and stores the block."""
    (q_smem, q_bar, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, stash_o, stash_l, stash_m, merged,
     desc_k, desc_v, desc_o, LSE, qk_scale) = shared
    _grid_wait()
    m0, pid_bh, off_b, off_h, off_hkv, n_tiles = _tile_coords(gl.program_id(0), sched, BLOCK_M, BLOCK_N, CAUSAL)
    n_local = gl.cdiv(_split_visits(n_tiles, NUM_WG) - WG, NUM_WG)
    o, l_i, m_i = _attend(q_smem, q_bar, 0, q_bar, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, q_bar,
                          desc_k, desc_v, qk_scale, off_b, off_hkv, m0, n_local, 0, 0, sched[2], sched[3],
                          4, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, True, WG, NUM_WG, False, False,
                          LAZY, WG, NUM_WG, WG * STAGES, False)
    if WG == 0:
        _grid_trigger()
        row_layout: gl.constexpr = m_i.type.layout
        mbarrier.wait(merged, 0)
        for w in gl.static_range(1, NUM_WG):
            o, l_i, m_i = _merge(o, l_i, m_i, _unstash_o(_stash(stash_o, w, BLOCK_M), o, HEAD_DIM),
                                 _stash(stash_l, w, BLOCK_M).load(row_layout),
                                 _stash(stash_m, w, BLOCK_M).load(row_layout))
        _store_out(o, l_i, m_i, q_smem, desc_o, LSE, off_b, off_h, m0, pid_bh, sched[2], 4, BLOCK_N, HEAD_DIM,
                   False)
    else:
        o_rows = _stash(stash_o, WG, BLOCK_M)
        for i in gl.static_range(len(o)):
            _columns(o_rows, i, HEAD_DIM).store(o[i])
        _stash(stash_l, WG, BLOCK_M).store(l_i)
        _stash(stash_m, WG, BLOCK_M).store(m_i)
        mbarrier.arrive(merged)  # release: the stores above are visible to the waiter


@gluon.jit
def _gluon_fwd_split_kernel(
    desc_q, desc_k, desc_v, desc_o, LSE,
    qk_scale, heads_q, group, seq_q, seq_k, batch_heads, chunk, counter, parts, plan,
    HEAD_DIM: gl.constexpr, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr,
    STAGES: gl.constexpr, CAUSAL: gl.constexpr, SPLIT_KV: gl.constexpr,
    LAZY_RESCALE: gl.constexpr, CONSUMER_REGS: gl.constexpr, num_warps: gl.constexpr,
):
    """Keys split within the CTA, for grids of a wave or less: one 64-row query block per
    CTA, SPLIT_KV consumer warpgroups on the same rows, each walking every SPLIT_KV-th KV
    tile, and a TMA producer warp. A block's serial chain of KV tiles, which sets the
    time when the grid cannot fill the GPU, shrinks SPLIT_KV-fold; the merge is a
    shared-memory round trip. ``counter``, ``parts`` and ``plan`` are unused (the warp-specialised
    kernel's signature, so both launch alike)."""
    _grid_wait()
    gl.static_assert(BLOCK_M == 64, "one warpgroup's rows per block")
    gl.static_assert(SPLIT_KV >= 2 and SPLIT_KV <= 4, "2 to 4 consumer warpgroups")
    RING: gl.constexpr = SPLIT_KV * STAGES
    dtype: gl.constexpr = desc_q.dtype
    q_smem = gl.allocate_shared_memory(dtype, desc_q.block_type.shape, desc_q.layout)
    k_smem = gl.allocate_shared_memory(dtype, [RING] + desc_k.block_type.shape, desc_k.layout)
    v_smem = gl.allocate_shared_memory(dtype, [RING] + desc_v.block_type.shape, desc_v.layout)
    # Merge buffers: BLOCK_M rows for each warpgroup after the first (``_stash``), rounded
    # up to a power of two (a shape rule).
    STASH: gl.constexpr = _stash_rows(SPLIT_KV, BLOCK_M)
    rows: gl.constexpr = gl.SwizzledSharedLayout(1, 1, 1, [0])
    stash_o = gl.allocate_shared_memory(gl.float32, [STASH, _build(HEAD_DIM)], gl.SwizzledSharedLayout(1, 1, 1, [1, 0]))
    stash_l = gl.allocate_shared_memory(gl.float32, [STASH], rows)
    stash_m = gl.allocate_shared_memory(gl.float32, [STASH], rows)
    q_bar = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    merged = gl.allocate_shared_memory(gl.int64, [1], mbarrier.MBarrierLayout())
    k_ready = gl.allocate_shared_memory(gl.int64, [RING, 1], mbarrier.MBarrierLayout())
    v_ready = gl.allocate_shared_memory(gl.int64, [RING, 1], mbarrier.MBarrierLayout())
    k_empty = gl.allocate_shared_memory(gl.int64, [RING, 1], mbarrier.MBarrierLayout())
    v_empty = gl.allocate_shared_memory(gl.int64, [RING, 1], mbarrier.MBarrierLayout())
    mbarrier.init(q_bar, count=1)
    mbarrier.init(merged, count=SPLIT_KV - 1)
    for i in gl.static_range(RING):
        mbarrier.init(k_ready.index(i), count=1)
        mbarrier.init(v_ready.index(i), count=1)
        mbarrier.init(k_empty.index(i), count=1)
        mbarrier.init(v_empty.index(i), count=1)
    fence_async_shared()

    sched = (heads_q, group, seq_q, seq_k, gl.cdiv(seq_q, BLOCK_M), batch_heads, chunk)
    shared = (q_smem, q_bar, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty, stash_o, stash_l, stash_m, merged,
              desc_k, desc_v, desc_o, LSE, qk_scale)
    loads = (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bar, k_ready, v_ready, k_empty, v_empty)
    if SPLIT_KV == 2:
        gl.warp_specialize([
            (_split_consumer, (0, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_consumer, (1, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_producer, (loads, sched, SPLIT_KV, BLOCK_M, BLOCK_N, STAGES, CAUSAL)),
        ], [4, 1], [CONSUMER_REGS, PRODUCER_REGS])
    elif SPLIT_KV == 3:
        gl.warp_specialize([
            (_split_consumer, (0, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_consumer, (1, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_consumer, (2, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_producer, (loads, sched, SPLIT_KV, BLOCK_M, BLOCK_N, STAGES, CAUSAL)),
        ], [4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, PRODUCER_REGS])
    else:
        gl.warp_specialize([
            (_split_consumer, (0, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_consumer, (1, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_consumer, (2, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_consumer, (3, shared, sched, SPLIT_KV, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL,
                               LAZY_RESCALE)),
            (_split_producer, (loads, sched, SPLIT_KV, BLOCK_M, BLOCK_N, STAGES, CAUSAL)),
        ], [4, 4, 4, 1], [CONSUMER_REGS, CONSUMER_REGS, CONSUMER_REGS, PRODUCER_REGS])


# ----------------------------------------------------------------------------------
# 2. Config, search space, heuristic
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Config:
    """``num_warps`` counts the warps that compute (16 query rows each). With
    ``warp_specialize`` the launch adds a producer warp and runs them as block_m / 64
    consumer warpgroups of 4 warps: block_m=128 (two, FA3's D=128 tile) or 192
    (three, FA3's D=64 tile), num_warps = block_m / 16. ``pingpong`` (warp-specialised
    only) makes the consumers take turns issuing their GEMMs, round robin, so that one
    warpgroup's softmax runs while another's GEMMs hold the tensor cores.
    ``persistent`` (warp-specialised only) launches one CTA per SM that strides through
    the query blocks, so that one block's prologue and epilogue overlap the next one's
    GEMMs; it costs a second Q-sized buffer for O. ``split_kv`` > 1 (warp-specialised,
    block_m=64 only) puts that many consumer warpgroups on the same 64 query rows, each
    walking every split_kv-th KV tile from its own ring (num_stages deep), and merges
    their states through shared memory: for grids too small to fill the GPU, where a
    block's serial KV chain sets the time. num_warps = 4 * split_kv there. ``kv_ctas`` > 1
    (stage 1 only) splits the keys across CTAs instead: that many CTAs share a query
    block, each walking every kv_ctas-th KV tile, and the last to finish merges their
    states through an fp32 workspace in global memory (L2): more SMs per block, where
    ``split_kv`` keeps one. ``lazy_rescale`` raises a row's running max only when a tile
    passes it by more than 2**8, and skips O's rescale in warps whose rows all kept it:
    64 (D=128) or 32 (D=64) multiplies off most tiles, for a compare and a vote in all.
    Where other warpgroups or CTAs fill the wait it pays; on a small grid's serial chain the
    branch costs (``_small_grid_config``). ``stream_k`` (persistent) cuts full items that
    would leave the last wave part-empty into pieces of key tiles spread evenly over the
    CTAs, FA3-style persistent tiles with CUTLASS's stream-K tail: the last wave of 2048
    items on 132 SMs is otherwise half idle. Causal, it runs the items by a plan from the
    host (``causal_plan``: pairs of whole items, or equal-cost runs of key tiles) instead of
    drawing them from a counter. Pieces of one item merge through an fp32 workspace.
    ``max_free`` (applies with ``lazy_rescale``; on by default, measured ahead on every
    standard cell, kernel log v35): unmasked tiles take no row max; their exps subtract the
    running max as it stands and the row sums (computed anyway) show when a p passed 2**8,
    and only then does the warp take the max and redo the tile (``_sum_checked``).
    ``packed_sums`` (with ``max_free``): those row sums add the packed 16-bit P the P @ V GEMM
    reads, two columns an instruction, instead of the fp32 P: 1 in an asm of its own, 2 inside
    the sum check (``packed_sum_lines``). Auto sets 2 on D=128's 192x64 tiles
    (``_THREE_WARPGROUPS_64``, and ``_THREE_WARPGROUPS_CAUSAL_64`` for causal rows from 2k keys
    and on few heads)
    and on its 128x128 tiles but for causal turns (``_build_config``).
    ``causal_tail`` (persistent causal, drawn from the counter): the order's last heads, drawn
    longest first together, as that many waves of items (one item per SM); 0 leaves them to
    the rule (``tail_heads``). A launch integer: every width runs the same binary.
    ``masked_free`` (with ``max_free``): masked tiles take the max-free path too, after the
    mask (``masked_free_pays`` says where auto sets it)."""

    block_m: int
    block_n: int
    num_warps: int
    num_stages: int
    warp_specialize: bool = False
    pingpong: bool = False
    persistent: bool = False
    split_kv: int = 1
    kv_ctas: int = 1
    lazy_rescale: bool = True
    stream_k: bool = False
    max_free: bool = True
    packed_sums: int = 0
    causal_tail: int = 0
    masked_free: bool = False

    def as_dict(self) -> dict:
        return asdict(self)


SEARCH_SPACE = {
    "block_m": (64, 128, 192),
    "block_n": (32, 64, 128),
    "num_warps": (4, 8, 12),
    "num_stages": (1, 2, 3),
    "warp_specialize": (False, True),
    "pingpong": (False, True),
    "persistent": (False, True),
    # 3 or 4 warpgroups ran slower than 2 on every small grid measured (2026-11-23-h100-small-grids/).
    "split_kv": (1, 2),
    "kv_ctas": (1, 2, 4, 8),
    "lazy_rescale": (False, True),
    "stream_k": (False, True),
    "max_free": (False, True),
    "packed_sums": (0, 1, 2),
    "causal_tail": (0, 1, 2, 3),
    "masked_free": (False, True),
}

SMEM_LIMIT = 227 * 1024
# Waves of items a ``causal_tail`` may hold: wider tails are the half-L2 rule's territory.
MAX_TAIL_WAVES = 4
# Query rows per consumer warpgroup under warp specialisation: the Q/O descriptors' block.
WG_ROWS = 64
# Head dims the kernel takes: multiples of 8 (TMA's 16-byte strides) from 16 to 256. Those
# between its builds (32, 64, 128, 256) run the next one up (``padded_head_dim``). Paired
# graph rounds at B*S = 16k (2026-11-26-h100-head-dim-gemms/): the D=32 build read 1.16-1.44x
# of the Triton TMA path that ran D=32 before (1-s-chunks/), D=24 0.84-1.45x of cuDNN
# against the portable kernel's 0.31-0.35x. D=16 stayed on the Triton TMA path then (the
# D=32 build won two cells of four, lost the others by up to 9%: 2-o-parts/). Since v65 it
# runs here: through the API, each alone, against the path auto took before (the Triton TMA
# kernel; on small grids the portable one), 1.04-1.50x in 25 of 30 cells (15 a dtype; B=2 H=8
# S=3000 causal 1.48) and 0.98-0.99x in five (2026-11-28-h100-d16-gluon/2-cells/, 5-confirm/,
# with ``stage1_lags``' D=16 rule).
MIN_HEAD_DIM, MAX_HEAD_DIM = 16, 256


def padded_head_dim(head_dim: int) -> int:
    """The build a head dim runs on: 32, 64, 128 or 256. TMA fills the columns past D with
    zeros on the loads (so S = QK^T and the padded columns of O = PV come out exact) and
    drops them on O's store. Paired graph rounds against cuDNN
    (benchmarks/results/2026-11-26-h100-causal-tiles/4-head-dims/, B*S = 16k, S=4k): D=96
    1.10x / 1.24x full / causal, D=80 1.13x / 1.24x, D=48 1.20x; the portable kernel that
    ran them before read 0.51-0.59x."""
    return 32 if head_dim <= 32 else 64 if head_dim <= 64 else 128 if head_dim <= 128 else 256


def gemm_head_dim(head_dim: int) -> int:
    """The kernels' HEAD_DIM constexpr: D up to wgmma's K step (16). The tiles, O and the
    workspaces take the build's columns (``padded_head_dim``); the S GEMM takes only
    these (``s_chunks``), O = P V the columns of its parts (``o_parts``)."""
    return -(-head_dim // 16) * 16


def consumer_regs(config: Config) -> int:
    """Registers per thread (setmaxnreg) requested for the worker consumer warpgroups.

    How Triton 3.6 splits the register file (lib/Conversion/TritonGPUToLLVM/
    AllocateWarpGroups.cpp): the worker warps are padded to whole warpgroups (the
    producer warp's group gets three idle warps; its request, 24, holds for the group),
    every thread starts at maxnreg = 64K / all threads, rounded down to 8, and the
    default partition (consumer 0) gets what the workers leave, per thread, rounded
    down to 8. So the file holds (consumers + 1) x 128 x maxnreg registers and the
    producer group takes 128 x 24 of it. The largest multiple of 8 that leaves
    consumer 0 at least as many: 240 for two consumers (maxnreg 168; 0 gets 240),
    160 for three (maxnreg 128; 0 gets 168)."""
    groups = config.block_m // WG_ROWS * config.split_kv
    maxnreg = 65536 // (128 * (groups + 1)) // 8 * 8
    return min(256, (maxnreg * (groups + 1) - PRODUCER_REGS.value) // groups // 8 * 8)


def binary_params(config: Config) -> dict:
    """How a config shows in its compiled binary, for the tuner's isolation check.

    The ring depth is the ``STAGES`` constexpr (Triton's own num_stages option stays at
    its default); a warp-specialised binary reports every partition's warps, so only
    its tile constexprs and ``PINGPONG`` are checked (it is also a different kernel
    function)."""
    shown = {"block_m": config.block_m, "block_n": config.block_n, "stages": config.num_stages,
             "lazy_rescale": lazy_level(config)}  # the LAZY_RESCALE constexpr: max_free is its level 2
    if config.warp_specialize:
        shown["pingpong"] = config.pingpong
        shown["persistent"] = config.persistent
        shown["split_kv"] = config.split_kv
        shown["stream_k"] = config.stream_k
    else:
        shown["num_warps"] = config.num_warps
        shown["kv_ctas"] = config.kv_ctas
    return shown


def smem_bytes(config: Config, head_dim: int, dtype_bytes: int = 2) -> int:
    """Q (reused for O unless persistent; under warp specialisation block_m / 64
    sub-tiles of 64 rows, the same bytes) plus the K and V rings (one per warpgroup with
    split_kv), plus split_kv's fp32 merge buffers; barriers are noise."""
    head_dim = padded_head_dim(head_dim)
    rows = config.block_m * (2 if config.persistent else 1) + 2 * config.num_stages * config.block_n * config.split_kv
    stash = stash_rows(config.split_kv, config.block_m) * (head_dim + 2) * 4 if config.split_kv > 1 else 0
    return rows * head_dim * dtype_bytes + stash


def constraints(config: Config, head_dim: int, causal: bool | None = None) -> str | None:
    """Configs the kernel cannot express, pruned before anything compiles (``causal`` None:
    either)."""
    head_dim = padded_head_dim(head_dim)
    reason = _split_constraints(config) if config.split_kv != 1 else _tile_constraints(config, head_dim)
    if reason is None and config.kv_ctas != 1:
        reason = _kv_ctas_constraints(config, head_dim)
    if reason is None and smem_bytes(config, head_dim) > SMEM_LIMIT:
        return f"needs {smem_bytes(config, head_dim)} B of shared memory, sm_90 has {SMEM_LIMIT}"
    if reason is None and config.packed_sums and not (config.max_free and config.lazy_rescale):
        # The same kernel as packed_sums=0: spare the tuner a duplicate point.
        return "packed_sums replaces the max-free row sums: it needs max_free and lazy_rescale"
    if reason is None and config.masked_free and not (config.max_free and config.lazy_rescale):
        return "masked_free takes masked tiles onto the max-free path: it needs max_free and lazy_rescale"
    if reason is None and config.causal_tail:
        reason = _tail_constraints(config, causal)
    return reason


def _tail_constraints(config: Config, causal: bool | None) -> str | None:
    if not 0 <= config.causal_tail <= MAX_TAIL_WAVES:
        return f"causal_tail takes 0 (the rule) to {MAX_TAIL_WAVES} waves of items, got {config.causal_tail}"
    if not config.persistent or config.stream_k:
        return ("causal_tail orders the items persistent CTAs draw from the counter: it needs persistent "
                "with stream_k off (a causal plan runs its own order)")
    if causal is False:
        # Full rows ignore it: spare the tuner a duplicate point.
        return "causal_tail orders causal items; full rows ignore it: leave it 0"
    return None


def _tile_constraints(config: Config, head_dim: int) -> str | None:
    if config.block_m != 16 * config.num_warps:
        return f"block_m must be 16 * num_warps (64 rows per warpgroup), got {config.block_m}/{config.num_warps}"
    if config.block_m == 192 and not config.warp_specialize:
        return "block_m=192 (three warpgroups) needs warp_specialize; stage 1 takes 64 or 128 rows"
    if config.warp_specialize and config.block_m not in (128, 192):
        return (f"warp_specialize runs block_m / 64 consumer warpgroups, two or three: block_m 128 or 192, "
                f"got {config.block_m}")
    if config.pingpong and not config.warp_specialize:
        return "pingpong orders the GEMMs of consumer warpgroups: it needs warp_specialize"
    if config.persistent and not config.warp_specialize:
        return "persistent CTAs need the TMA producer warp to load ahead: it needs warp_specialize"
    if config.stream_k and not config.persistent:
        return "stream_k cuts the last wave's items between persistent CTAs: it needs persistent"
    if config.warp_specialize and config.block_m == 192 and head_dim > 128:
        return (f"three consumer warpgroups get {consumer_regs(config)} registers a thread; at D={head_dim} O "
                f"alone takes {head_dim // 2}: two warpgroups (block_m=128) or stage 1")
    if config.warp_specialize and config.block_m == 192 and head_dim > 64 and config.block_n > 64:
        # Offline ptxas at D=128, 192x128: ~1.9 KB spilled and the wgmmas serialised (C7512).
        return (f"three consumer warpgroups get {consumer_regs(config)} registers a thread; at D={head_dim} with "
                f"{config.block_n}-key tiles O ({head_dim // 2} registers), S ({config.block_n // 2}) and P "
                f"({config.block_n // 4}) leave too few for the rest and ptxas spills; block_n=64 fits")
    return None


def _split_constraints(config: Config) -> str | None:
    if config.split_kv not in (2, 3, 4):
        return f"split_kv takes 1 (off) or 2 to 4 consumer warpgroups, got {config.split_kv}"
    if not config.warp_specialize or config.pingpong or config.persistent or config.stream_k:
        return ("split_kv runs warp-specialised, one query block per CTA: warp_specialize on, "
                "pingpong/persistent/stream_k off")
    if config.block_m != WG_ROWS or config.num_warps != 4 * config.split_kv:
        return (f"split_kv puts {config.split_kv} warpgroups on one block of {WG_ROWS} rows: block_m={WG_ROWS}, "
                f"num_warps={4 * config.split_kv}, got {config.block_m}/{config.num_warps}")
    return None


def _kv_ctas_constraints(config: Config, head_dim: int) -> str | None:
    if not 2 <= config.kv_ctas <= 8:
        return f"kv_ctas takes 1 (off) or 2 to 8 CTAs per query block, got {config.kv_ctas}"
    if config.warp_specialize:
        return "kv_ctas splits stage 1's keys across CTAs: warp_specialize off (split_kv splits them within one)"
    return None


@functools.lru_cache(maxsize=4096)
def heuristic_config(arch: int, head_dim: int, dtype_bytes: int, causal: bool, seq_q: int, seq_k: int,
                     batch_heads: int = 1 << 16, group: int = 1) -> Config:
    """Fastest correct configs measured on the H100 (bf16, graph mode, standard preset
    shapes: B*S = 16k, H*D = 2048).

    D=128 (benchmarks/results/2026-11-22-h100-persistent/, median us, one CTA per query
    block -> persistent 128x128, 2 stages): full S512 175 -> 146, S1k 286 -> 263, S2k
    506 -> 479, S4k 948 -> 927, S8k 1832 -> 1815 (cuDNN 148 / 259 / 473 / 929 / 1847);
    causal, drawing items from a counter, S1k 222 -> 187, S2k 332 -> 301, S4k 539 ->
    516, S8k 982 -> 963, S16k 1866 -> 1839 (cuDNN 170 / 298 / 536 / 1005 / 1933). The
    static-stride persistent schedule had lost 5-10% causal at S >= 2k. Causal S512 is
    best with stage 1's 64-row tiles (121 us, persistent 136, cuDNN 108): a 128-row tile
    wastes a quarter of its work on the diagonal there. Ping-pong turns: within noise.
    With the lazy rescale (2026-11-23-h100-lazy-rescale/4-short-causal/ep-confirm.log, 15 paired rounds of
    300 ms): causal S512 64x32 tiles, two stages (48 KB: four CTAs per SM) 1.049 [1.007,
    1.084] of 64x64 (123.6 -> 117.9 us); causal S1k stage 1 64x64 with one stage (48 KB)
    1.027 [1.012, 1.074] of the persistent 128x128 (189.0 -> 184.4); at S2k it loses (0.973).
    (Superseded at S1k by the ping-pong build under sustained load: ``_build_config``.)

    D=64 (earlier gluon-wg3 run, and the persistent sweep): three consumer warpgroups on
    FA3's 192x128 tile with ping-pong turns, 480 / 506 TF full at S4k / S8k against stage
    1's 446 / 452 (cuDNN 479 / 458). Causal from S8k: the same tile, persistent, drawing
    items from the counter; paired sustained timing (300 ms rounds, 2026-11-22-h100-d64-causal/
    abx_split_everywhere.log, abx2.log) reads it 3.7-4.7% / 6.2-7.6% faster than stage 1 at
    S8k / S16k and 7.3% slower at S4k (superseded from 2k keys under sustained load:
    ``three_warpgroups_draw_less``).
    (Re-read after the v16 masks, 8 rounds of 300 ms, 2026-11-23-h100-causal-mask/configs/:
    one CTA per item, now spill-free, and three stages read 1-1.5% faster at S8k/16k, within
    the bench's ~1% provider-order lean; kept.) Full S2k (up to 4k): the same tile
    persistent with three stages, 1.056 [1.019, 1.062] and 1.050 / 1.048-1.052 (s2) of stage 1 in two sustained
    paired runs (2026-11-22-h100-kv-loop/abc*.log); from S4k it ties the non-persistent
    build (1.001) and at S8k two stages persistent lose 5%. Below that stage 1 (64x128, one
    warpgroup) stays ahead of every persistent variant (S1k full 0.94 of it; S512 full 194 us
    vs 198-213; causal S4k 691 vs 716-771): at D=64 the softmax, not the prologue, limits.
    Causal S <= 1k takes 64-key tiles, as the bf16 tuned table's entries do: 1.083 [1.049,
    1.116] / 1.078 [1.063, 1.111] of 64x128 at S512 / S1k (11 paired rounds of 300 ms,
    2026-11-23-h100-lazy-rescale/7-persistent-stage1/); fp16 has no table entry.
    Stream-K tail (full, persistent; 2026-11-25-h100-stream-k/, paired graph rounds of
    60 ms, 31 rounds, both builds spill-free; at D=128 from 2k keys now only on grids with
    fewer than three 192-row items a CTA: ``three_warpgroups_read_less``): D=128 whole-items / stream-K 1.026-1.034 at
    S4k-16k, GQA 1.024-1.034; S2k 1.005 / 1.011 (three runs, all >= 1.004); S1k 0.994 and
    S512 0.950 (an item of 4-8 key tiles does not pay for the merge), so from 2k keys.
    Below that, ping-pong turns (2026-11-25-h100-pingpong-fp16/1-pingpong-d128/, 61 paired
    rounds of 60 ms): full S1k 1.019 [1.008, 1.054], S512 1.024 [0.955, 1.098]; with items
    of 4-8 key tiles, one warpgroup's epilogue and peeled first tile then run under the
    other's GEMMs. From 2k keys they lose (S2k 0.995, S8k 0.980); causal S1k 1.010 over
    stage 1, within noise, so causal keeps its tiles.
    D=64 persistent 192x128 (three stages) with stream-K against what shipped: S2k 1.025,
    S4k 1.049 (the tuned entry's config), S8k 1.034 and S16k 1.021 against the
    non-persistent two stages; S512 / S1k stay on stage 1 (persistent reads 0.87 / 0.92).
    D=64 causal persistent 192x128, three stages against two (2026-11-25-h100-one-partition/
    2-d64-stages/, 61 paired rounds): S8k 1.020, S16k 1.010, B4 S8k 1.017 [1.009, 1.060], H16
    S8k 1.013; 64-key tiles lost there (0.88-0.94), as did an eager O rescale (0.99).
    Unmasked tiles without a row max (``max_free``, the default; 2026-11-26-h100-maxfree/,
    paired graph rounds on the H200 against the same configs without it, runs 2-4 and 6): D=64
    full S16k 1.033 / 1.062 / 1.062, S2k 1.026 / 1.060; D=128 full S8k 1.024 / 1.018 / 1.022,
    causal S8k 1.010 / 1.011 / 1.020, S4k 1.003 / 0.998 / 1.015; D=64 causal S8k 0.992 / 1.013
    / 1.016, S16k 1.010; S <= 1k (stage 1, the tuned 64-key tiles and D=128's ping-pong tiles)
    1.019-1.074 over all eight cells.

    Small grids (one wave of 128-row blocks or less): see ``_small_grid_config``. Head dims
    between the builds take their build's configs (``padded_head_dim``), but where O runs in
    parts (``o_parts``) see ``_parts_config``. The causal tail: ``tail_waves``."""
    config = _build_config(arch, head_dim, causal, seq_q, seq_k, batch_heads)
    if small_grid(seq_q, batch_heads):
        return config
    if not config.warp_specialize and stage1_lags(head_dim, causal, seq_q):
        config = _STAGE1_INSTEAD[padded_head_dim(head_dim)]
    elif head_dim == 32 and config == _STAGE1:
        config = _STAGE1_D32
    if len(o_parts(gemm_head_dim(head_dim))) == 2:  # D=16's one narrow part keeps its configs
        config = _parts_config(config, head_dim, causal, seq_q, seq_k, batch_heads)
    if causal and config.persistent and not config.stream_k:
        config = dataclasses.replace(config, causal_tail=tail_waves(head_dim, seq_k, group))
    if masked_free_pays(head_dim, causal, config):
        config = dataclasses.replace(config, masked_free=True)
    return config


def masked_free_pays(head_dim: int, causal: bool, config: Config) -> bool:
    """Whether causal rows' masked tiles take the max-free path too (``Config.masked_free``):
    the mask, then the exps against the running max as it stands and the sum check, instead of
    a row max (D=32 192x128: 534 -> 468 instructions a masked tile), for a loop that carries
    the sum check's redo as the unmasked one does. On an H200 (2026-11-28-h200-masked-free/,
    paired 30 ms rounds, bf16 / fp16, the mean of the two orders read in calls 1-3 and 4 where
    both ran (one order for D=96, D=64's pairs and D=128's 192x64 fp16); the alone windows
    favour whichever runs second at the 700 W limit):

    - 64- and 32-key tiles on the D=64 and D=128 builds: stage 1's 64x64 at D=64 B=4 H=32 S=1k
      1.011 / 1.024, B=4 H=64 S=512 1.013 / 1.025, the standard preset's S=512 1.008 / 1.027 and
      S=1k 1.018 / 1.029, D=48 S=1k 1.015 / 1.030; D=128's 64x32 at S=512 1.050 / 1.052; D=128's
      192x64 at S=3000 1.005 / 0.998, D=80 1.004, D=96 1.020 / 1.026.
    - Lost (calls 1-2): the D=32 build's 64x64 (0.961) and stage 1's 64x128 at D=64 (B=2 H=8
      S=2k / 4k 0.973-0.978).

    On 192-row blocks the read turns with code outside the KV loop (2026-11-28-h200-one-loop/,
    paired rounds, bf16 / fp16). Once a plan's order stopped drawing by groups (2b7d78a, ~80
    instructions fewer a consumer), every pairs build ran faster without masked-free tiles
    (auto's D=64 pairs 4-6%), and masked-free tiles over the row max turned: on the D=32 build
    from 0.965 to 1.049-1.083 (D=16 / 24 / 32 S=3000; drawn: GQA 32/8 S=8k 1.019 / 1.020, D=32
    S=16k 1.014 / 1.015, D=16 S=8k 1.013 / 1.016); on the D=64 build from 1.054-1.070 to
    0.94-0.96 (pairs at D=40 / 48 / 64 and GQA 16/4; drawn D=48 GQA S=8k 0.99). Under ncu they
    raise the instruction-fetch stall (0.17-0.23 cycles an issue) on both builds; at D=32 their
    2% fewer instructions win, at D=64 not."""
    if not causal or lazy_level(config) < MAX_FREE.value:
        return False
    build = padded_head_dim(head_dim)
    if config.block_n <= 64:
        return build in (64, 128)
    return build == 32 and config.block_m == 192


# Three consumer warpgroups on 192-row blocks with turns: the D=64 / D=32 builds' long rows.
_THREE_WARPGROUPS = Config(block_m=192, block_n=128, num_warps=12, num_stages=3, warp_specialize=True, pingpong=True,
                           persistent=True)
# Three consumer warpgroups on 192x64 tiles with turns: the D=128 build's full rows from 2k keys.
# Their row sums come from the packed P, inside the sum check (``Config.packed_sums`` 2;
# 2026-11-27-h100-packed-sums/, each alone for 600 ms against the fp32 sums, bf16 / fp16:
# B=2 S=8k 1.019 / 1.014, B=4 S=4k 1.031 / 1.049, B=1 S=16k 1.007 / 1.035, GQA 32/8 B=2 S=8k
# 1.060 / 1.022, D=96 S=4k 1.029 / 1.011; spill-free at D=80-128). The common path loses 28
# FADDs for 14 HADD2 and 4 conversions. D=128's 128x128 tiles take them too (``_build_config``);
# D=64's 192x128 (0.98-0.996) and stage 1 (64x32 0.98-0.995, 64x128 level) keep fp32 sums.
_THREE_WARPGROUPS_64 = Config(block_m=192, block_n=64, num_warps=12, num_stages=2, warp_specialize=True,
                              pingpong=True, persistent=True, packed_sums=2)
# The same tiles with three stages: the D=128 build's causal rows from 2k-8k keys (``causal_three_warpgroups_pay``)
# and on few heads (``few_causal_items_balance``).
_THREE_WARPGROUPS_CAUSAL_64 = dataclasses.replace(_THREE_WARPGROUPS_64, num_stages=3)
# Two consumer warpgroups on 128-row blocks with turns: the D=128 build's causal rows of 513-1024 keys.
_TWO_WARPGROUPS_TURNS = Config(block_m=128, block_n=128, num_warps=8, num_stages=2, warp_specialize=True,
                               pingpong=True, persistent=True)
# Stage 1: one warpgroup on 64-row blocks, the builds' config on grids past a wave where no
# rule above takes another.
_STAGE1 = Config(block_m=64, block_n=128, num_warps=4, num_stages=2)
# D=32's stage 1 on 64-key tiles: 1.004-1.067x over 128-key ones, each alone for 300 ms, in 10
# of 10 cells (bf16 and fp16: B=32 H=64 S=512 full 1.065 / 1.067, B=8 H=64 S=2k causal 1.062 /
# 1.039, B=16 H=128 S=1k full, B=8 S=1536 full, B=4 H=128 S=4k causal 1.004-1.028), at 1.5-9%
# less energy a call, with the clock at the 700 W limit (2026-11-28-h100-d16-gluon/31-d32/;
# paired 30 ms rounds 0.98-1.07, noisy). Three stages read 0.97-1.01. D=24 (the same GEMMs, rows
# of 48 bytes) was not read and keeps 128-key tiles.
_STAGE1_D32 = dataclasses.replace(_STAGE1, block_n=64)
# The build's warp-specialised persistent config where stage 1 lags (``stage1_lags``); on the
# D=32 build (D=16 only) with the packed sums, which read 1.006-1.012x over fp32 sums there.
_STAGE1_INSTEAD = {32: dataclasses.replace(_THREE_WARPGROUPS, packed_sums=2), 64: _THREE_WARPGROUPS,
                   128: _TWO_WARPGROUPS_TURNS}


def stage1_lags(head_dim: int, causal: bool, seq_q: int) -> bool:
    """Where stage 1 (one warpgroup on 64-row blocks) loses to the build's warp-specialised
    persistent config (``_STAGE1_INSTEAD``; grids past one wave). Paired graph rounds on the
    H100, bf16 unless stated, stage 1's time over the other's
    (benchmarks/results/2026-11-27-h100-odd-cells/, runs 2, 4 and 6-8):

    - Head dims of 8 mod 16 on the D=64 and D=128 builds (rows of 80, 112, 208, 240 bytes):
      D=40 full S=1k 1.84x, causal S=512 / 1k / 4k 1.25 / 1.47 / 2.24x; D=56 full S=512
      1.27x, causal S=4k 1.50x; D=104 causal S=512 1.38x; D=120 causal S=1k 1.49x. The D=32
      build's D=24 reads level (0.996) and keeps stage 1. Run 13 (Nsight Compute): TMA
      reads a 128-byte row in one L2 request and a row at these pitches in 3.3-4.4, and stage
      1, which loads a head's K and V once per 64 rows, runs at the L2's request rate.
    - D=48 (and D=40: the S GEMM's 48 columns) causal past 1k keys: S=1536 1.055, S=2k
      1.027 / 1.034 fp16, S=4k 1.099-1.107 / 1.061 fp16, B=2 H=8 S=3000 1.066; B=1 H=16
      S=2k 0.979. S=1k keeps stage 1's 64x64 (three warpgroups 0.84-0.86x).
    - D=16 (its 16-column S GEMM on the D=32 build) from 1k keys, full, and past 1k causal:
      B=16 H=128 S=1k full 1.134, B=4 H=128 S=4k causal 1.081, B=8 H=64 S=2k causal 1.146,
      each alone for 150 ms, bf16 (2026-11-28-h100-d16-gluon/4-variants/; the Triton TMA kernel
      read 1.150 / 1.046 / 1.174 there, fp32 sums 1.126 / 1.074 / 1.132). Causal S=1k keeps
      stage 1's 64x64 (the Triton TMA kernel 0.81 of it, 2-cells/). At D=32 the same cells read
      0.85-0.95 (the clock at the power limit): stage 1 stays."""
    build = padded_head_dim(head_dim)
    if head_dim % 16 == 8 and build in (64, 128):
        return True
    if gemm_head_dim(head_dim) == 16:
        return seq_q > 1024 or not causal and seq_q == 1024
    return build == 64 and gemm_head_dim(head_dim) == 48 and causal and seq_q > 1024


def _parts_config(config: Config, head_dim: int, causal: bool, seq_q: int, seq_k: int, batch_heads: int) -> Config:
    """Configs where O runs in two column parts, on grids of more than one wave (paired graph
    rounds, bf16, 2026-11-26-h100-head-dim-gemms/; "x" = the build's config's time over this one's).

    On the D=128 build, causal rows of 513-1024 keys run the ping-pong persistent build, as at
    D=128 (``_build_config``; 7-cells/: B16 S1k D=80 1.17x, D=96 1.14x over stage 1's 64x64; at
    S=512 stage 1's 64x32 stays, 0.99x / 0.86x), and full rows from 2k keys three consumer warpgroups on 192x64
    tiles, with turns (O in parts leaves them 128 registers a thread, spill-free; 6-cells/ and
    7-cells/: S=4k D=80 1.09x / 1.08x, D=96 1.06x, S=2k D=80 1.05x; full S=1k 0.95x keeps
    128x128; causal rows 0.92-0.99x then, before each warpgroup stopped at its own diagonal
    tile: see ``causal_three_warpgroups_pay``). Else ``_turns``.

    Those 192x64 items take a stream-K tail where the last wave would be at most 0.4 full
    (``part_empty_last_wave``). On an H200 (2026-11-28-h200-wide-d-configs/, calls 6, 8-10
    and 13; whole items' time over stream-K's, in 30 ms paired rounds / each alone for 400 ms
    at the 700 W limit, bf16 then fp16): 5.2-5.3 waves D=80 B=4 H=16 S=2k 1.047 / 1.015 and 1.057 / 1.016, D=96 1.056 / 1.019 and 1.060 /
    1.004, D=96 B=2 H=16 S=4k 1.097 / 1.033 and 1.098 / 1.033, D=80 B=1 H=16 S=8k 1.128 / 1.075
    and 1.138 / 1.063; 21.3 waves (D=96 B=16 S=2k) 1.013 / 0.995 and 1.012 / 1.001. Where the
    rule says no: 10.7 waves (D=96 B=8 S=2k) 0.992 / 0.988 and 0.994 / 0.984, 1.94 waves (B=2
    H=8 S=3000, bf16) D=96 0.910 / 0.910, D=80 0.919 / 0.922. Unlike ``stream_k_pays``, not on
    every grid of 15+ waves: 21.3 read level, and on exact waves nothing is cut. D=128's 192x64
    (whole items, ``three_warpgroups_read_less``) read 1.027 / 0.977 at 5.3 waves and keeps them.
    As shipped (call 9, D=96's merge a part at a time, spill-free): 0.936-0.982 alone and
    0.887-0.941 paired for whole items in the six 5.2-5.3-wave cells of both dtypes. D=72 and
    D=88 (call 10, the same GEMMs at rows of 8 mod 16 half-words): 5.2-5.3 waves (D=88 B=4 S=2k
    and B=2 S=4k, D=72 B=1 S=8k) 1.061-1.130 paired and 1.010-1.076 alone in both dtypes; 10.7
    waves (D=72 B=8 S=2k) 0.994-0.995 / 0.988-0.994. GQA at 5.33 waves (call 13: D=96 32/8,
    D=80 32/4, D=88 64/8): 0.909-0.930 / 0.946-0.973 for whole items.

    D=80's and D=96's causal turns on drawn items (128x128, from 513 keys) sum the packed P
    (``packed_sums=1``), which ``_turns`` leaves off elsewhere (D=128 S=1k read 0.97-1.00 with
    it, v50). Auto's time over the packed sums', each alone for 400 ms / in 30 ms paired
    rounds, bf16 / fp16 (2026-11-28-h100-tune-trailing/2/): D=96 B=4 H=16 S=4k 1.030 / 1.022
    and 1.015 / 1.046, B=8 S=2k 1.008 / 1.042 and 1.009 / 1.042 (the same config, run again:
    1.030 / 1.041, 1.020 / 1.046). With ``tail_waves``' one wave at S=4k: 1.048 / 1.069 and
    1.046 / 1.062; the tuner had found the pair on fp16 S=4k and confirmed it at 1.072 (1/). As
    shipped, the old config's time over this one's alone (3/), bf16 / fp16: S=4k 1.057 /
    1.059, S=2k 1.034 / 1.033, B=5 S=3000 1.053 / 1.058, GQA 32/8 S=4k 1.072 / 1.055. Shorter
    rows and D=80 (2026-11-28-h100-packed-turns/1/, same windows): D=80 B=8 H=24 S=2k 1.013 /
    1.025 and 1.009 / 1.052, B=16 S=1k 0.997 / 1.019 and 1.000 / 1.040; D=96 B=16 H=16 S=1k
    0.988 / 1.048 and 0.993 / 1.038, on 2-5% less energy a call. D=72 and D=88 (the same
    parts, rows of 8 mod 16 half-words) read 0.98-1.01, D=112 (O whole) 0.99-1.04: not taken.
    As shipped (2/: the old config's time over this one's, alone for 600 ms / paired, both
    dtypes; D=80 S=1k, 1500 and 2k, GQA 32/8 S=1k, D=96 S=1k): 1.010-1.027 / 0.993-1.032."""
    if padded_head_dim(head_dim) == 128 and not causal and seq_k >= 2048:
        return dataclasses.replace(_THREE_WARPGROUPS_64, stream_k=part_empty_last_wave(cdiv(seq_q, 192) * batch_heads))
    config = _turns(config, causal)
    if causal and head_dim in (80, 96) and config.block_m == 128 and not config.stream_k:
        return dataclasses.replace(config, packed_sums=1)
    return config


def tail_waves(head_dim: int, seq_k: int, group: int) -> int:
    """The persistent causal tail's waves of items (``Config.causal_tail``; 0: the rule, about
    one wave on rows of at most 2k keys, ``one_wave_tail``). The rule's time over each width's
    on 128x128 turns (> 1: the width is faster), each alone for 500 ms / in 30 ms paired
    rounds, bf16 (2026-11-28-h100-tail-waves/, calls 1-3 and 30):

    * D=80 and D=96 (O in parts, rows a multiple of 32 bytes) on rows of at most 1k keys, two
      waves: D=96 B=16 H=16 1.034 / 1.059 (fp16 1.038 / 1.056; through the API 1.040 / 1.047),
      D=80 B=16 H=24 1.037 / 1.032 (fp16 1.024 / 1.030; API 1.030 / 1.024), D=80 B=8 1.007 /
      1.022, D=96 B=4 H=32 0.990 / 1.006. Not elsewhere: D=72 / 88, the same GEMMs at rows of
      8 mod 16 half-words, 0.985 / 0.991; D=104-120 (O whole) 0.990-1.007; D=80 / 96 at 2k
      keys 0.967 / 0.985; MHA D=128 0.994 (three waves at D=72-120 0.968-0.990).
    * GQA on the D=128 build's rows of at most 1k keys, three waves: 32/8 B=16 S=1k 1.022 /
      1.017 (two 0.987 / 0.994, four 1.011 / 1.018; tail-scope call 1 read 64 heads 1.029 /
      16 heads 1.008 over the half-L2 rule's 200). At 2k keys (192x64) two and four read
      1.001 / 1.008: the rule stands. Call 30, through the API: 32/8 1.029 / 1.017 (fp16 1.026
      / 1.019); three waves on 32/16 1.020 / 1.016 and 32/4 1.011 / 1.012. Head dims of 8 mod 16
      keep the rule, as their MHA rows read wider tails 0.984-0.992.
    * D=96 on rows of 2k-4k keys, one wave (at 2k the rule's width too): with the packed sums
      of ``_parts_config``, B=4 H=16 S=4k one wave (5 heads) against the rule's 16, each alone
      for 400 ms / paired, 1.017 / 1.046 bf16 and 1.031 / 1.015 fp16 (the two ratios over auto
      of 2026-11-28-h100-tune-trailing/2/ divided); without them 1.022 / 0.980, 1.020 / 1.013.
      D=80 S=4k (192x64) read one wave 1.030-1.034 alone but 0.973-0.974 paired: not taken."""
    if head_dim in (80, 96) and seq_k <= 1024:
        return 2
    if head_dim == 96 and seq_k <= 4096:
        return 1
    if group > 1 and padded_head_dim(head_dim) == 128 and head_dim % 16 == 0 and seq_k <= 1024:
        return 3
    return 0


def _turns(config: Config, causal: bool) -> Config:
    """Warp-specialised builds take ping-pong turns where O runs in two column parts
    (``o_parts``). Without turns the two warpgroups' GEMMs lost everything the parts save:
    D=96 B=4 H=16 S=4k causal (2026-11-26-h100-head-dim-gemms/3-turns/, Nsight Compute)
    kept the tensor pipe busy 52.6% of 768k cycles with the parts against 81.3% of 664k
    padded, its tensor cycles down by the quarter the parts drop. Paired rounds at S=4k
    (same run, against cuDNN): D=96 full / causal 0.96 / 1.11x (parts, no turns), 1.13 / 1.27
    (padded, auto's config), 1.19 / 1.36 (parts, turns); D=80 1.02 / 1.15, 1.14 / 1.23,
    1.23 / 1.37; D=96 S=2k full 0.98, 1.10, 1.17. With turns at S=1k (2-o-parts/) D=96 and
    D=80 full read 1.11 / 1.17x of padded."""
    if not (config.warp_specialize and config.split_kv == 1) or config.pingpong:
        return config
    # Causal plans keep their pieces (``causal_plan_pays``: D=96 / 80 with turns 1.09 / 1.10x).
    # Causal turns sum the fp32 P: with packed sums they read 0.97-1.00x (D=128 S=1k, v50).
    return dataclasses.replace(config, pingpong=True, stream_k=config.stream_k and causal,
                               packed_sums=0 if causal else config.packed_sums)


def _build_config(arch: int, head_dim: int, causal: bool, seq_q: int, seq_k: int, batch_heads: int) -> Config:
    gemm = gemm_head_dim(head_dim)
    head_dim = padded_head_dim(head_dim)
    if small_grid(seq_q, batch_heads):
        return _small_grid_config(head_dim, causal, seq_k, cdiv(seq_q, WG_ROWS) * batch_heads)
    if head_dim > 128:
        # D=256 (4-head-dims/, against cuDNN): two consumer warpgroups on 128x64 tiles, 197 KB
        # of shared memory (persistent would need 263), full S1k / 4k / 8k 1.06 / 1.09 / 1.07x,
        # causal S1k / 4k 1.04 / 1.20x. Turns: S8k 1.10x, S1k 1.03, S4k 1.05 / 1.17 causal.
        # 128x32 tiles and stage 1's 64x64 / 64x32 read 0.79-0.92x. Causal rows of at most 1k
        # keys take turns at D=256 (H200, 2026-11-28-h200-wide-d-configs/ calls 6 and 14,
        # time without over with, paired / alone, bf16 and fp16): B=4 H=16 S=1k 1.011 / 1.034
        # and 1.013 / 1.028, B=8 S=512 1.023 / 1.008 and 1.024 / 1.017. Level or mixed
        # elsewhere: causal S=2k 0.997-1.006, S=3000 1.024 / 0.976, full S=1k / 4k 0.984-1.009.
        # (The small grid B=2 H=8 S=1000, one bf16 cell at 1.012 / 1.013, keeps
        # ``_small_grid_config``'s tile.)
        return Config(block_m=128, block_n=64, num_warps=8, num_stages=2, warp_specialize=True,
                      pingpong=causal and seq_q <= 1024 and gemm == 256)
    if head_dim <= 64:
        pairs = three_warpgroup_pairs_pay(causal, seq_q, batch_heads)
        if causal and (seq_q >= 8192 or pairs or three_warpgroups_draw_less(head_dim, seq_q, batch_heads)):
            return dataclasses.replace(_THREE_WARPGROUPS, stream_k=pairs, packed_sums=causal_packed_sums(head_dim, pairs))
        if not causal and seq_q >= 2048:
            return dataclasses.replace(_THREE_WARPGROUPS, stream_k=stream_k_pays(cdiv(seq_q, 192) * batch_heads))
        if causal and seq_q <= 1024:
            return Config(block_m=64, block_n=64, num_warps=4, num_stages=2)
        return _STAGE1
    if causal and seq_q <= 512:
        # Re-read at B=32 H=16 (2026-11-27-h100-short-causal/1-tests-tiles/, bench, bf16): 64x32
        # s3, 64x64, 128x32 / 128x64 on 8 warps and 128x64 ws (pp, persistent, s2 / s3) took
        # 1.04-1.42x its time; the tuner's 16 candidates found none faster (5-tune/).
        return Config(block_m=64, block_n=32, num_warps=4, num_stages=2)
    if causal and seq_q <= 1024:
        # Stage 1's 64x64 (one stage) had read 1.027x over persistent 128x128 in paired rounds
        # of 300 ms (v21). With turns, alone for 800 ms (the clock settles) the ping-pong build
        # reads 1.019 / 1.029x over it (bf16 / fp16) at 3.3 / 1.5% less energy a call, and in
        # the bench 1.025-1.048x (B=16 H=16; 2026-11-27-h100-power/, runs 7-9; H200 1.030x).
        return _TWO_WARPGROUPS_TURNS
    long_full = not causal and seq_k >= 2048
    if long_full and three_warpgroups_read_less(seq_q, batch_heads):
        return _THREE_WARPGROUPS_64
    # Causal plans take turns: pairs 1.07-1.11x with them, cuts 1.00x (causal-plan/12-turns/).
    plan = causal_plan_pays(causal, seq_q, batch_heads)
    if causal and (few_causal_items_balance(seq_q, batch_heads)
                   or not plan and causal_three_warpgroups_pay(seq_q, batch_heads, gemm)):
        return _THREE_WARPGROUPS_CAUSAL_64
    # Row sums from the packed P (chained: a tree spills here) on the drawn causal items and the
    # short full rows, where they were measured (2026-11-27-h100-packed-sums/9-chain/, B*S = 16k,
    # H=16, bf16 / fp16, 30 ms paired rounds, the same tiles and bytes: causal S=4k 1.023 /
    # 1.014, S=8k 1.021 / 1.013, S=16k 1.023 / 1.018; full S=1k 1.036 / 1.033, alone 1.028 /
    # 1.022; energy a call level or lower). The causal turns of 513-1024 keys read 0.97-1.00.
    short_full = not causal and not long_full
    return Config(block_m=128, block_n=128, num_warps=8, num_stages=2, warp_specialize=True, persistent=True,
                  pingpong=short_full or plan,
                  stream_k=(long_full and stream_k_pays(cdiv(seq_q, 128) * batch_heads)) or plan,
                  packed_sums=2 if short_full or (causal and not plan) else 0)


def causal_packed_sums(head_dim: int, pairs: bool) -> int:
    """``Config.packed_sums`` for causal rows on the three-warpgroup 192x128 tiles of a build
    (``head_dim`` padded; ``pairs``: the launch runs the plan's pairs, ``stream_k``). The D=32
    build's rows sum the packed P inside the sum check: its softmax is MUFU-heavy (Nsight
    Compute at B=2 H=8 S=3000: the XU pipe 52% busy, the tensor pipe 31%), and 28 FADDs fewer
    a tile read 1.007-1.022x in 30 ms paired rounds and 1.015-1.035x alone for 400 ms, in all
    12 cells of bf16 and fp16 (2026-11-28-h100-d32-turns/5-sums32/, auto's time over the
    variant's: D=32 S=3000 pairs / S=8k / S=16k / GQA 32/8 S=8k, D=24 and D=16 S=3000). Full
    rows read level (0.997-1.006 paired, 4-sums/). The D=64 build's pairs take them since the
    plan pieces' first tile went conditional (v68, H200, 2026-11-28-h200-first-tile/6-packed-
    sums/): D=40 / 48 / 64 S=3000 and GQA 16/4 1.014-1.024x in 30 ms paired rounds, all 8 cells
    of bf16 and fp16 (alone for 300 ms at the power limit 0.977-1.021). Its drawn items keep
    fp32 sums: they spill 16 B with packed ones (S=8k read 1.001-1.017 all the same)."""
    return 2 if head_dim <= 32 or pairs else 0


# Query heads (batch x heads) up to which persistent causal launches run by a plan of cuts.
CAUSAL_PLAN_HEADS = 8


def causal_plan_pays(causal: bool, seq_q: int, batch_heads: int) -> bool:
    """Whether a persistent causal launch on the D=128 build runs by a plan (``causal_plan``)
    instead of drawing whole items longest first: pairs of whole items where they fill the
    SMs (``causal_plan.pairs_each``), else equal-cost runs of key tiles at B*H <= 8.
    Paired graph rounds, bf16, the plan's time against the dynamic schedule's
    (2026-11-26-h100-causal-plan/):
    - Pairs (9-pairs/, 10-more-pairs/): one a CTA 1.14-1.26x (B=1 H=8 S=4096 1.16, H=4
      S=8192 1.21, H=2 S=16k 1.23, Hq/Hkv 8/2 1.23, D=96 1.26, B*H=16 S=2000-2048
      1.14-1.16); two a CTA 1.04-1.06x; four 1.03x; eight 0.98-1.00x (not used).
    - Cuts (3-snap/, 4-heads/, 5-auto/): at B*H <= 8 1.03-1.24x in 11 cells of 12 (B=1 H=4
      S=6000 1.24, H=8 S=3000 1.08, S=2112 1.03, S=6144 0.99), at B*H = 12 0.93-0.95x and
      16 0.88-0.93x: there the cuts' second prologues, epilogues and merges cost more than
      the dynamic schedule's tail."""
    items = cdiv(seq_q, 128) * batch_heads
    return causal and (causal_plan.pairs_each(items, SMALL_GRID_CTAS) > 0 or batch_heads <= CAUSAL_PLAN_HEADS)


def three_warpgroup_pairs_pay(causal: bool, seq_q: int, batch_heads: int) -> bool:
    """Whether a causal launch on the D=64 / D=32 builds runs 192-row blocks by a plan of one
    pair of whole items a CTA (``causal_plan.pair_rows``: a long item and its short partner)
    instead of stage 1. Paired graph rounds, bf16, the plan's time over stage 1's
    (2026-11-27-h100-odd-cells/, runs 6-7 and 14): one pair a CTA with 16 blocks a head,
    B=2 H=8 S=3000 D=64 1.137-1.160x, B=1 H=16 S=3000 1.141x, D=48 S=2900 / 3000 1.168 /
    1.237x (over the dynamic 192-row schedule / stage 1), D=32 1.038-1.039x; with 8 blocks a
    head (B=4 H=8 S=1500) 0.983x; two pairs a CTA (B=4 H=8 and B=2 H=16 S=3000) 1.009 /
    1.014x, where the dynamic 192-row schedule read 1.047x; B=1 H=16 S=2k (11 blocks, no
    pairs: cuts) 0.778x."""
    blocks = cdiv(seq_q, 192)
    return causal and blocks >= 16 and causal_plan.pairs_each(blocks * batch_heads, SMALL_GRID_CTAS) == 1


def three_warpgroups_draw_less(head_dim: int, seq_q: int, batch_heads: int) -> bool:
    """Whether causal rows of 2k-8k keys on the D=64 build run three warpgroups on 192-row
    blocks (dynamic, longest first) instead of stage 1. Stage 1 reads a head's K and V once
    per 64 rows, three times the L2 traffic, and under the H100's 700 W cap that costs clock
    (benchmarks/results/2026-11-27-h100-power/). B=4 H=32 S=4k, the 192-row build's time
    over stage 1's, bf16 / fp16: each alone for 800 ms (the clock settles) 1.045 / 1.053x,
    4.1 / 4.9% less energy a call; in the bench's turns of ~110 ms 1.097 / 1.089x; paired
    rounds of 30 ms, whose providers share one clock, 0.969 / 0.971x. B=8 S=2k: alone 1.008
    / 1.001x, bench 1.026 / 1.042x. The few-item cases (bench, H200, bf16 / fp16): 176 items
    (B=1 H=16 S=2k) 0.905 / 0.904x, 352 items 0.995 / 0.992, 512 (B=4 H=8 S=3000) 1.094 /
    1.115, 704 (B=1 H=32 S=4k) 1.115 / 1.122, 1024 (B=2 H=32 S=3000) 1.059 / 1.082; S=1536
    (4096 items) 1.006 / 1.003 and S=1k 0.852 / 0.875 keep stage 1. So: from 2k keys and
    three items a CTA."""
    items = cdiv(seq_q, 192) * batch_heads
    return head_dim == 64 and seq_q >= 2048 and items >= 3 * SMALL_GRID_CTAS


def three_warpgroups_read_less(seq_q: int, batch_heads: int) -> bool:
    """Whether full rows of 2k+ keys on the D=128 build run three warpgroups on 192x64 tiles
    (whole items) instead of 128x128 with a stream-K tail: K and V cross L2 once per 192 rows,
    not 128, which at the power limit is clock (2026-11-27-h100-power/). B*S = 16k, H=16,
    bf16, each alone for 800 ms: S=4k 1.024x [1.015, 1.028] at 2.9% less energy a call, S=8k
    1.013x [1.001, 1.032] (run 14; 30 ms paired rounds 1.001 / 1.039); the bench, bf16 / fp16
    (run 15): S=2k 1.015 / 1.012, S=4k 1.049 / 0.999, S=8k 1.011 / 1.019, S=16k 1.062 / 1.051.
    With 2k+ query rows (a short block of 192 rows wastes more than one of 128) and three or
    more items a CTA (as measured: 1376-1408), since whole items have no tail to balance a
    partial wave. Three stages read 1.006x at S=4k. GQA (Hq=32, Hkv=8; 2026-11-27-h100-short-causal/
    2-gqa-power/), alone, bf16 / fp16: B=2 S=8k 0.994 / 1.008x, B=1 S=16k 1.012 / 1.034, B=4
    S=4k 1.003 / 1.010."""
    return seq_q >= 2048 and cdiv(seq_q, 192) * batch_heads >= 3 * SMALL_GRID_CTAS


def causal_three_warpgroups_pay(seq_q: int, batch_heads: int, head_dim: int) -> bool:
    """Whether causal rows on the D=128 build (``head_dim``: the S GEMM's, ``gemm_head_dim``)
    run three warpgroups on 192x64 tiles with three stages, drawing whole items, instead of
    128x128 (with turns where O runs in two parts, ``_turns``). Each
    warpgroup stops at its own 64x64 diagonal tile (``_skips_unseen``), where 128x128 tiles
    give the lower warpgroup half a tile of masked work, and K and V cross L2 once per 192
    rows. Each alone for 600 ms, 128x128's time over this one's, bf16 / fp16
    (2026-11-27-h100-shipped-peers/3-skip/; B*S = 16k, H=16): S=4k 1.021 / 1.024, S=8k 1.036 /
    1.030, S=16k 1.027 / 1.043, GQA 32/8 B=2 S=8k 1.047 (bf16); two stages 1.020-1.072, but
    S=2k 0.978. Without the skip these tiles read level at S=4k (v50). S=2k with three
    stages, six readings (3-skip/; 2026-11-27-h100-turn-stress/2-parts-fp16/ and, alone for
    1200 ms at B=8 H=16 and B=4 H=32, 6-causal-2k/): bf16 1.026, 1.015 [1.003, 1.034], 1.017
    [0.999, 1.032]; fp16 1.020, 1.008 [1.000, 1.018], 1.003 [0.994, 1.008]; 1-2% less energy
    a call in each of call 6's four; so from 2k keys. Grids as ``three_warpgroups_read_less``'s
    (three or more items a CTA; measured: 1376-2752).

    Where O runs in two parts, each alone for 600 ms against 128x128 with turns, bf16 / fp16
    (B*S = 16k, H=16; bf16 at D=96 and S=4k in 2026-11-27-h100-causal-parts/1-parts/, the
    rest in 2026-11-27-h100-turn-stress/2-parts-fp16/ and 3-parts-8k/): S=8k D=96 1.052 /
    1.047, D=80 1.034 / 1.052 (two stages 1.043-1.056); S=4k D=80 1.037 / 1.048, but D=96
    0.987 / 1.003, so D=81-96 (a 32-column second part) from 8k keys. Spill-free offline at
    D=72-96 in both dtypes."""
    parts = o_parts(head_dim)
    keys = 2048 if len(parts) == 1 else 8192 if parts[-1][1] == 32 else 4096
    return seq_q >= keys and three_warpgroups_read_less(seq_q, batch_heads)


def few_causal_items_balance(seq_q: int, batch_heads: int) -> bool:
    """Whether causal rows on the D=128 build (every head dim padded to it) run three
    warpgroups on 192x64 tiles, whole items drawn longest first, on a grid of at most four
    such items a CTA, where ``causal_three_warpgroups_pay`` needs three a CTA and more keys
    at D=80 / 96, and a plan (``causal_plan_pays``) or 128x128 items ran. From 2k query rows,
    where the longest item is shorter than a CTA's mean share of the tiles (B*H * (n + 1) / 2 >
    SMs for n items a head), so that whole items balance without a plan's pieces.

    Each checked against the fp64 reference, then alone for 600 ms / in 30 ms paired rounds,
    bf16, the old config's time over this one's (2026-11-28-h100-odd-peers/, calls 19-20):
    B=2 H=8 S=3000 (256 items; 128x128 drawn) D=128 1.136 / 1.138, D=112 1.163 / 1.195, D=96
    1.054 / 1.043, D=88 1.275 / 1.339, D=80 1.114 / 1.136, D=72 1.171 / 1.252; B=3 H=8 D=80
    (384) 1.092 / 1.051; B=4 H=8 D=96 (512) 1.057 / 1.064. Against the plan: B=1 H=16 S=4k
    (352) D=80 1.066 / 1.091, D=96 1.029 / 1.015, D=128 1.028 / 1.084; B=1 H=8 S=8k D=96
    (344) 1.013 / 1.031. Unbalanced, the plan stays: B=2 H=8 S=2k (176 items, the longest
    11 units of work against a mean share of 8) 0.938 / 0.849. The plan's pieces on these
    tiles ran at 0.84-1.00 of whole items' speed in every cell. On larger grids the rows keep
    128x128 where ``causal_three_warpgroups_pay`` says so (D=96 B=4 H=16 S=4k, 1408 items,
    read level)."""
    n = cdiv(seq_q, 192)
    return (seq_q > 2048 and n * batch_heads <= 4 * SMALL_GRID_CTAS
            and batch_heads * (n + 1) > 2 * SMALL_GRID_CTAS)


def stream_k_pays(items: int) -> bool:
    """Whether the stream-K tail beats whole items for a persistent full-attention grid of
    ``items`` work items, by its waves on 132 SMs (paired graph rounds,
    2026-11-26-h100-d256-key-split/3-stream-k-waves/ and 4-sweep/, time without / with it).

    It won from 15 waves (the standard preset: D=64 at 20.9-21.3 waves 1.021-1.049, D=128
    at 15.5 1.005-1.034) and where the last wave was a third full (D=64 S=2k at 1.33 /
    5.33 waves 0.90-0.92 / 0.97, D=128 1.33 waves 0.86): cutting it evenly saves what a
    part-empty wave idles. Below 15 waves with a fuller last wave, whole items won by 1-23%
    (D=64 at 1.67-10.7 waves 1.012-1.23, D=128 at 1.94-11.6 waves 1.010-1.22); the stream-K
    build pays its cut items' extra prologues and merges, and 1-2.5% on exact waves (2, 4
    and 16: no item cut), which larger grids amortise."""
    return items / SMALL_GRID_CTAS >= 15 or part_empty_last_wave(items)


def part_empty_last_wave(items: int) -> bool:
    """Whether ``items`` whole items on 132 SMs leave the last wave at most 0.4 full."""
    waves = items / SMALL_GRID_CTAS
    return 0 < waves - int(waves) <= 0.4


def _small_grid_config(head_dim: int, causal: bool, seq_k: int, blocks: int) -> Config:
    """Grids of a wave or less of 128-row blocks, where a block's serial KV chain sets the
    time (H100, graph mode; ``blocks``: 64-row query blocks of the call). Long key rows split
    across CTAs where ``kv_ctas_for`` finds room (decode-like and chunked-prefill calls);
    else the tile whose CTAs fill the SMs (``_small_grid_tile``).

    O's rescale in stage 1 and the split stays eager here: on a block's serial chain the lazy
    one's branch cost 2-3% (paired graph rounds: seed B=1 5.24 -> 5.35 us, B=1 H=8 S=2k D=128
    causal split 24.7 -> 25.5; Sq=128 Sk=16k 8 CTAs even; benchmarks/results/2026-11-23-h100-lazy-rescale/).
    The ping-pong build keeps the lazy one (level or ahead, 2026-11-26-h100-d256-key-split/2-small-grids/).
    At D=256 it stays lazy: O's rescale is 128 multiplies a thread there, and the lazy 64x32
    build read 187 us against the eager one's 215 (B=1 H=16/8 Sq=512 Sk=8k,
    2026-11-26-h100-causal-tiles/9-decode/)."""
    tile = _small_grid_tile(head_dim, causal, seq_k, blocks)
    return tile if head_dim > 128 or tile.pingpong else dataclasses.replace(tile, lazy_rescale=False)


def _small_grid_tile(head_dim: int, causal: bool, seq_k: int, blocks: int) -> Config:
    """Stage 1's 64-row blocks while they fit one wave; past that one CTA per 128 rows, or
    causal rows split between two warpgroups (measured below and in ``_small_grid_config``'s
    sources: 2026-11-23-h100-small-grids/, 2026-11-26-h100-d256-key-split/)."""
    if head_dim > 128:
        return _d256_small_grid_tile(seq_k, blocks)
    tile = Config(block_m=64, block_n=128, num_warps=4, num_stages=2)
    kv_ctas = kv_ctas_for(blocks, seq_k, min(2, SMEM_LIMIT // smem_bytes(tile, head_dim)))
    if kv_ctas > 1:
        return dataclasses.replace(tile, kv_ctas=kv_ctas)
    # Causal rows of 2k keys or more: two warpgroups split each block's keys, so the longest
    # chain halves, 1.10-1.33x over stage 1 (B=1 H=8 S=2k D=64 21.8 -> 19.9 us, D=128 35.7 ->
    # 27.0; H=4 S=4k D=64 39.6 -> 30.4); S=2k D=128 1.08x over the ping-pong build below.
    split = Config(block_m=64, block_n=64, num_warps=8, num_stages=2, warp_specialize=True, split_kv=2)
    if causal and seq_k >= 2048:
        return split
    # Stage 1 (one CTA per SM at D=128) wins within a wave of its CTAs, and at D=64 and 512
    # keys (seed shape 6.3 us, against 7.2-7.6 split).
    if head_dim <= 64 or seq_k <= 512 or blocks <= SMALL_GRID_CTAS:
        return tile
    # On the D=128 build, where stage 1's 64-row CTAs would take more than a wave, the
    # ping-pong warpgroups on 128x128 tiles (one CTA per 128 rows) or, causal on a grid of
    # those that leaves SMs idle, the split: fill decides (2026-11-26-h100-d256-key-split/
    # 2-small-grids/ to 4-sweep/, paired rounds, bf16).
    # - Ping-pong against stage 1's 64x64, three stages (the rule before): B=2 H=8 S=1000
    #   D=80 full / causal 1.54 / 1.20x, D=96 1.28 / 1.10x; D=128 B=2 H=8 S=1k 1.11 / 1.07x,
    #   B=1 H=16 S=1k full 1.16x, B=1 H=4 S=4k full 1.31x; B=1 H=8 S=2k D=96 full 1.42x.
    # - Fill: at D=128 S=2k full, 48 / 64 CTAs of 128 rows lost to stage 1's 96 / 128 of
    #   64 rows (0.78x), 96 / 112 won (1.50x); B=2 H=8 S=512 (64) 0.74x; D=64 0.93x.
    # - Causal: 96 ping-pong CTAs lost to the split (S=1k H=12 0.93 / 0.97x at D=128 / 96,
    #   S=1536 H=8 0.79x), 128 won (B=2 H=8 S=1k 1.05 / 1.15x).
    if causal and cdiv(blocks, 2) < SMALL_GRID_CTAS * 7 // 8:
        return split
    return Config(block_m=128, block_n=128, num_warps=8, num_stages=2, warp_specialize=True, pingpong=True)


def _d256_small_grid_tile(seq_k: int, blocks: int) -> Config:
    """D=256 (and the head dims padded to it): stage 1's 64x64 tiles (164 KB, one CTA per SM)
    within a wave of them. On one wave the serial chain is what counts, and half as many
    tiles shorten it: B=1 H=16/8 Sq=512 Sk=8k 106.5 us against 64x32's 186.9 and cuDNN's
    180.8 (2026-11-26-h100-causal-tiles/9-decode/).

    Long key rows split across CTAs as at D=128; kv_ctas_for's pick was the fastest measured
    in every cell (2026-11-26-h100-d256-key-split/1-cells/, B=1 H=8 Sk=8k unless named):
    Sq=64 8 CTAs 37.3 us (portable kernel's 16 splits 63.2, SDPA flash 44.9); Sq=256 4 CTAs
    43.6 (unsplit 99.1, 2 or 8 CTAs 59.7 / 66.9, 64x32 tiles 8 CTAs 57.1, flash 75.2); Sq=128
    Sk=16k 8 CTAs 61.8 (flash 79.1); Sq=512 and Hq/Hkv 16/8 Sq=256 2 CTAs 64.6 / 66.8 (4 CTAs
    84-86, flash 118); D=192 B=2 Sq=256 Sk=4k 2 CTAs 41.9 (4 CTAs 52.4, flash 51.9).

    Where stage 1's CTAs would take two waves, the larger grids' two warpgroups on 128x64
    tiles, one CTA per 128 rows (8-d256-small-grids/, paired rounds against stage 1): B=2 H=8
    S=1000 full / causal 1.17 / 1.06x, B=1 H=8 S=2k 1.22 / 1.06x, H=16 S=1k 1.22x, H=4 S=4k
    1.25x; within a wave (B=2 H=8 S=512) 0.73x."""
    tile = Config(block_m=64, block_n=64, num_warps=4, num_stages=2)
    kv_ctas = kv_ctas_for(blocks, seq_k, min(2, SMEM_LIMIT // smem_bytes(tile, 256)))
    if kv_ctas > 1 or blocks <= SMALL_GRID_CTAS:
        return dataclasses.replace(tile, kv_ctas=kv_ctas)
    return Config(block_m=128, block_n=64, num_warps=8, num_stages=2, warp_specialize=True)


# Keys each CTA keeps at least when stage 1 splits them across CTAs.
KV_CTAS_MIN_KEYS = 1024


def kv_ctas_for(blocks: int, seq_k: int, per_sm: int = 2) -> int:
    """CTAs per 64-row query block for stage 1's cross-CTA key split: doubled up to 8 while
    the grid stays within ``per_sm`` CTAs per SM (as many as fit its shared memory, at most
    two) and each CTA keeps ``KV_CTAS_MIN_KEYS`` keys.

    Publishing and merging the parts through L2 (a ticket per block) costs ~1-3 us: at
    the seed shape (512 keys) two CTAs read 6.1-11 us against stage 1's 5.1-7.6. Where a
    CTA keeps 1k+ keys it pays (H100, bf16, graph mode, benchmarks/results/2026-11-23-h100-kv-ctas/,
    B*H=8 unless named, against the dispatch before it):
    D=64 (64x128 tiles, 72 KB: two CTAs per SM): Sq=256 Sk=4k 4 CTAs 16.4 us (portable
    split 17.6); Sq=512 Sk=8k causal 4 CTAs (256 in all) 30.7 (47.0; 2 CTAs 37.9).
    D=128 (64x128 tiles, 144 KB: one CTA per SM; a second wave loses 20-30%): Sq=64 Sk=8k 8
    CTAs 24.8 (28.3); Sq=128 Sk=16k 8 CTAs 39.8 (57.5); Sq=256 Sk=4k 4 CTAs 19.2, causal 19.2
    (32.6, 33.3); Sq=256 Sk=8k 4 CTAs 28.8; Sq=512 Sk=4k 2 CTAs 25.8; Sq=512 Sk=8k 2 CTAs 44.1
    (98.0); B=2 Sq=256 Sk=8k 2 CTAs 45.3 (`7-tiles/`). 64x64 tiles, three stages, two per SM,
    read 44.6-45.5 at Sq=512 Sk=8k (4 CTAs) and lose elsewhere (Sq=128 Sk=16k 45.6, Sq=256
    Sk=8k 30.8-38.1). Keeping 512 keys loses (Sq=256 Sk=4k D=128 8 CTAs 29.1), and so do 16
    CTAs (Sq=128 Sk=16k 61.2)."""
    kv_ctas = 1
    while (kv_ctas < 8 and blocks * kv_ctas * 2 <= per_sm * SMALL_GRID_CTAS
           and seq_k >= KV_CTAS_MIN_KEYS * kv_ctas * 2):
        kv_ctas *= 2
    return kv_ctas


# ----------------------------------------------------------------------------------
# 3. Launcher
# ----------------------------------------------------------------------------------
_GL_DTYPE = {torch.float16: gl.float16, torch.bfloat16: gl.bfloat16}


def supports(q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, arch: int) -> str | None:
    """None when this kernel can take these tensors, else why not."""
    if arch != 90:
        return f"needs sm_90a (wgmma + TMA), got sm_{arch}"
    if q.dtype not in _GL_DTYPE or k.dtype != q.dtype or v.dtype != q.dtype:
        return f"dtype {q.dtype}/{k.dtype}/{v.dtype}: needs fp16 or bf16, all alike"
    d = q.shape[3]
    if k.shape[3] != d or v.shape[3] != d:
        return f"head dims {d}/{k.shape[3]}/{v.shape[3]}: needs one head dim for q, k and v"
    if d % 8 or not MIN_HEAD_DIM <= d <= MAX_HEAD_DIM:
        return f"head dim {d}: needs a multiple of 8 from {MIN_HEAD_DIM} to {MAX_HEAD_DIM}"
    return tma_layout_problem(q, k, v)


@functools.lru_cache(maxsize=64)
def _layout(rows: int, head_dim: int, dtype: torch.dtype):
    # ~5 us per call on the H100 host (a Gluon constexpr function); four per launch.
    return gl.NVMMASharedLayout.get_default_for([1, 1, rows, head_dim], _GL_DTYPE[dtype])


def _desc(t: torch.Tensor, rows: int) -> TensorDescriptor:
    # The block spans the build's head dim; past the tensor's own, TMA loads zeros and
    # stores nothing.
    cols = padded_head_dim(t.shape[3])
    return TensorDescriptor(t, list(t.shape), list(t.stride()), [1, 1, rows, cols], _layout(rows, cols, t.dtype))


_LAUNCHERS = {fn: CachedLauncher(fn) for fn in (_gluon_fwd_kernel, _gluon_fwd_ws_kernel, _gluon_fwd_split_kernel)}
# Triton's own num_stages option: unused by these kernels (the rings are STAGES deep),
# passed as its default so every launch names the same binary.
_TRITON_STAGES = 3


def dynamic_schedule(config: Config, causal: bool) -> bool:
    """Whether the launch draws work items from a counter (the kernel's DYNAMIC): causal
    persistent launches without a plan (``stream_k``)."""
    return config.persistent and causal and not config.stream_k


def kernel_constexprs(config: Config, head_dim: int, causal: bool) -> dict:
    """The constexprs a launch of ``config`` passes (also what the offline compile uses)."""
    constexprs = dict(HEAD_DIM=gemm_head_dim(head_dim), BLOCK_M=config.block_m, BLOCK_N=config.block_n,
                      STAGES=config.num_stages, CAUSAL=causal, LAZY_RESCALE=lazy_level(config))
    if config.split_kv > 1:
        constexprs.update(SPLIT_KV=config.split_kv, CONSUMER_REGS=consumer_regs(config))
    elif config.warp_specialize:
        constexprs.update(PINGPONG=config.pingpong, PERSISTENT=config.persistent,
                          STREAM_K=stream_k(config, causal), CONSUMER_REGS=consumer_regs(config))
    else:
        constexprs.update(KV_CTAS=config.kv_ctas)
    return constexprs


def lazy_level(config: Config) -> int:
    """The kernels' LAZY constexpr: 0 eager rescale, 1 lazy, 2 lazy without a row max on
    unmasked tiles (``MAX_FREE``), 3 and 4 that with packed sums 1 and 2, each plus
    ``MASKED_FREE`` (8) when masked tiles go max-free too. max_free is a form of
    the lazy rescale (a row's max rises only past 2**8), so an eager config ignores it, and
    packed_sums replaces max_free's sums, so a config without max_free ignores it."""
    if not config.lazy_rescale:
        return 0
    if not config.max_free:
        return 1
    return MAX_FREE.value + int(config.packed_sums) + (MASKED_FREE.value if config.masked_free else 0)


def stream_k(config: Config, causal: bool) -> bool:
    """Whether the launch cuts items into stream-K pieces (the kernel's STREAM_K): full
    items evenly over the last waves (``_stream_k_plan``), causal ones by a plan from the
    host (``causal_plan``)."""
    return config.stream_k and config.persistent


def stream_k_items(items: int, grid: int) -> int:
    """Items a stream-K launch cuts into pieces (``_stream_k_plan`` on the host): none when
    they fill the last wave, else that wave's and the one before's."""
    return 0 if items % grid == 0 else grid + items % grid


def kernel_fn(config: Config):
    """The device function a config runs (also what the offline compile builds)."""
    if config.split_kv > 1:
        return _gluon_fwd_split_kernel
    return _gluon_fwd_ws_kernel if config.warp_specialize else _gluon_fwd_kernel


def causal_chunk(seq_k: int, head_dim: int, dtype_bytes: int, group: int, l2_bytes: int) -> int:
    """Query heads of the causal order's tail (``_tile_coords``), the last heads, drawn longest
    first together so that the launch ends on short items: as many as keep their K/V within
    half of L2 (the other half is for the streams of Q and O). Heads of one GQA group share
    K/V, so they count once. Measured as the width of every chunk of the earlier order
    (persistent causal launches, each alone for 400 ms, half-L2's time over the other
    chunk's, < 1: half is faster; 2026-11-27-h100-short-causal/, runs 7-8; D=128 S=4k / 2k /
    8k, GQA S=4k, D=64 S=4k): a quarter of L2 0.997 / 1.010 / 0.991 / 1.013 / 0.957, an
    eighth 0.98-1.00 and 0.948 at D=64; all of L2 1.009 / 0.960 / 1.007 / 1.000 / 0.989;
    twice L2 0.82-0.99; every head in one chunk 0.64-0.97. As the tail, with one KV group
    at a time before it where the tail holds at most ``ONE_GROUP_TAIL`` KV heads, it runs
    1.005-1.023x as fast as those chunks (``_tile_coords``; 2026-11-27-h100-q-split/). On
    the D=128 build's short rows ``prepare`` caps it at about one wave of items (``one_wave_tail``)."""
    kv_bytes = 2 * seq_k * head_dim * dtype_bytes
    return max(1, l2_bytes // 2 * group // kv_bytes)


def one_wave_tail(seq_q: int, seq_k: int, head_dim: int, block_m: int, sms: int) -> int | None:
    """A narrower causal tail (``causal_chunk``'s cap) on the D=128 build's short rows: the
    query heads whose items make about one wave (one per SM), or None where the half-L2 rule
    stands. Measured on auto's persistent D=128 configs, MHA, each width alone for 800 ms, bf16
    (2026-11-27-h100-s512-dram/, call 6; the rule's width is also the body's chunk, as it
    holds more than ``ONE_GROUP_TAIL`` heads): B=16 S=1k (128x128 turns, 8 items a head,
    the rule's 50 heads) 32 / 16 / 8 / 1 heads 1.037 / **1.044** / 1.027 / 1.022 of the
    rule's speed; B=8 S=2k (192x64, 11 items, 25 heads) 12 / 6 heads **1.017** / 0.981. As
    shipped (17 / 12 heads; call 7, 600 ms alone) against the rule: S=1k 1.027 / 1.028, S=2k
    1.026 / 1.018 (bf16 / fp16); in 30 ms paired rounds, at higher clocks, S=1k 1.000 / 1.002
    and S=2k 0.998 / 0.945 [0.925, 1.18]. A wide tail of short items runs several waves of
    heads side by side, their Q, K, V and O crossing L2 at once. From 4k keys the earlier
    order's narrower chunks were level or slower (``causal_chunk``), and D=64 lost 5% to a
    narrower one at S=4k: the rule stands there. GQA 32/8 (2026-11-28-h100-tail-scope/, call 1,
    alone for 600 ms, bf16 / fp16, over the rule's 200 / 100 heads): B=16 S=1k 64 / 32 / 16
    heads 1.029 / 1.012 / 1.008 and 1.029 / 1.010 / 1.017; B=8 S=2k 48 / 24 / 12 heads 1.016 /
    1.019 / 1.019 and 1.020 / 1.019 / 1.030 (the kernel rounds the tail up to whole KV groups).
    D=64 B=8 H=32 S=2k (192x128, the rule's 50 heads): 24 / 12 / 6 heads 0.992 / 0.892 / 0.885
    (bf16), 0.994 / 0.897 / 0.888 (fp16), so not at D=64: a tail of at most ``ONE_GROUP_TAIL``
    heads also draws the body one KV group at a time, which that cell lost to before. The rest
    of the D=128 build (O in parts, 128x128 turns; tail-scope call 16, bf16 / fp16): D=96 B=16 H=16 S=1k
    (rule 66) 32 / 17 / 8 heads 1.094 / 1.062 / 1.037 and 1.094 / 1.055 / 1.034; D=80 B=16 H=24
    S=1k (rule 80) 1.060 / 1.043 / 1.021 and 1.059 / 1.035 / 1.017; D=96 B=8 S=2k (rule 33) 16 /
    9 heads 1.019 / 1.047 and 1.020 / 1.053. D=72, 88 and 104-120 take it by build, unmeasured."""
    if padded_head_dim(head_dim) != 128 or seq_k > 2048:
        return None
    return wave_heads(seq_q, block_m, sms)


def wave_heads(seq_q: int, block_m: int, sms: int) -> int:
    """Query heads whose items (query blocks) make about one wave, one item per SM."""
    return cdiv(sms, cdiv(seq_q, block_m))


def tail_heads(config: Config, causal: bool, seq_q: int, seq_k: int, head_dim: int, dtype_bytes: int, group: int,
               facts: tuple) -> int:
    """Query heads of the persistent causal order's tail (``_tile_coords``' chunk): the
    config's ``causal_tail`` waves of items where it sets them, else the half-L2 rule
    (``causal_chunk``) with ``one_wave_tail``'s cap. ``facts``: the device's (SMs, L2 bytes)."""
    sms, l2_bytes = facts
    if config.causal_tail:
        return config.causal_tail * wave_heads(seq_q, config.block_m, sms)
    chunk = causal_chunk(seq_k, head_dim, dtype_bytes, group, l2_bytes)
    cap = one_wave_tail(seq_q, seq_k, head_dim, config.block_m, sms) if causal else None
    return chunk if cap is None else min(chunk, cap)


def ws_grid(config: Config, seq_q: int, batch_heads: int, device_index: int) -> int:
    """CTAs of the warp-specialised kernel: one per work item, or (persistent) one per
    SM, no more than there are items. Its registers (every warp at maxnreg) fill an SM."""
    items = cdiv(seq_q, config.block_m) * batch_heads
    if not config.persistent:
        return items
    return min(items, _device_facts(device_index)[0])


class _HostDesc:
    """What Triton 3.6's launcher reads from a host ``TensorDescriptor`` (its
    ``make_tensordesc_arg``: base, shape, strides, padding), without the constructor's
    per-call validation. Only for launches of an already compiled binary whose real
    descriptors had these shapes, strides and blocks."""

    __slots__ = ("base", "shape", "strides")
    padding = "zero"

    def __init__(self, base: torch.Tensor, shape: list, strides: list):
        self.base, self.shape, self.strides = base, shape, strides


def kv_parts(config: Config, items: int, head_dim: int, device: torch.device) -> tuple:
    """(fp32 workspace, tickets) for stage 1's key split across CTAs: a (o, m, l) state of
    block_m rows per CTA, and a zeroed counter per query block. Both are taken per call,
    per stream (a CUDA graph capture gets its own; ``launch.split_buffers``)."""
    state = config.block_m * (head_dim + 2)  # (o, m, l) of one CTA
    (workspace,), tickets = split_buffers(items, (items * config.kv_ctas * state,), device)
    return workspace, tickets


def stream_k_fits(config: Config, seq_q: int, seq_k: int, batch_heads: int, device_index: int) -> bool:
    """Whether the kernel's int32 schedule holds this launch's cut (item, key tile) pairs
    (more than 2**31 needs about 10**9 keys; such a launch runs whole items)."""
    items = cdiv(seq_q, config.block_m) * batch_heads
    grid = ws_grid(config, seq_q, batch_heads, device_index)
    return stream_k_items(items, grid) * cdiv(seq_k, config.block_n) < 2**31


def stream_k_parts(config: Config, items: int, grid: int, head_dim: int, device: torch.device,
                   causal: bool = False) -> tuple:
    """(tickets, fp32 workspace) for a stream-K launch: a zeroed ticket per cut item and
    consumer warpgroup, and room for one (o, m, l) state of its 64 rows (``_merge_pieces``);
    causal, two slots and a ticket per CTA and warpgroup (``_merge_plan_pieces``). Per call
    and stream, as ``kv_parts``."""
    keys = (2 * grid if causal else stream_k_items(items, grid)) * (config.block_m // WG_ROWS)
    (workspace,), tickets = split_buffers(keys, (keys * WG_ROWS * (head_dim + 2),), device)
    return tickets, workspace


def prepare(q, k, v, causal: bool, scale: float, config: Config, store_lse: bool = True, out=None):
    """Everything a launch derives from shapes, strides and flags, done once.

    Returns ``run(q, k, v, out=None, lse=None) -> (out, lse)`` for tensors with these
    shapes, strides, dtypes and 16-byte alignment (``out``, when given, with the strides
    of the ``out`` passed here; else ``torch.empty_like(q)``'s). The first run launches
    through Triton with real tensor descriptors (compiling if needed); later runs hand
    the compiled launcher light descriptors and pointers (plans: ~45 -> ~10 us of host
    time per eager call). Without ``store_lse`` a run returns ``lse=None``.
    """
    batch, heads_q, seq_q, head_dim = q.shape
    build_dim = padded_head_dim(head_dim)  # the workspaces hold the build's columns
    if config.stream_k and not stream_k_fits(config, seq_q, k.shape[2], batch * heads_q, q.get_device()):
        config = dataclasses.replace(config, stream_k=False)
    q_rows = WG_ROWS if config.warp_specialize else config.block_m
    group = heads_q // k.shape[1]
    ints = (heads_q, group, seq_q, k.shape[2])
    index = q.get_device()
    plan = None
    if config.warp_specialize:
        chunk = tail_heads(config, causal, seq_q, k.shape[2], head_dim, q.element_size(), group, _device_facts(index))
        if causal and stream_k(config, causal):
            lead = causal_plan.causal_lead(seq_q, config.block_m) if leads(True, config.block_m, build_dim) else 0
            plan = causal_plan.table(seq_q, k.shape[2], batch * heads_q, config.block_m, config.block_n,
                                     ws_grid(config, seq_q, batch * heads_q, index), q.device, lead)
            if plan is None:  # a CTA would get no key tile
                config = dataclasses.replace(config, stream_k=False)
            else:  # a plan's runs hold items from the whole order at once: one chunk (ZIGZAG's order)
                chunk = batch * heads_q
    dynamic = dynamic_schedule(config, causal)
    cut = stream_k(config, causal)
    if config.warp_specialize:
        ints = (*ints, batch * heads_q, chunk)
        # A plan of pairs may run fewer CTAs than SMs: one per row but the last.
        grid = (ws_grid(config, seq_q, batch * heads_q, index) if plan is None else plan.shape[0] - 1, 1, 1)
        num_warps = 4
    else:
        grid = (cdiv(seq_q, config.block_m) * config.kv_ctas, batch * heads_q, 1)
        num_warps = config.num_warps
    launcher = _LAUNCHERS[kernel_fn(config)]
    constexprs = kernel_constexprs(config, head_dim, causal)
    out_strides = (out if out is not None else torch.empty_like(q, device="meta")).stride()
    # The descriptors' layouts follow from the dtype and the block constexprs; their shapes
    # and strides are in the key too (as Triton's own key for descriptors would have them).
    key_ints = (*ints, *q.shape, *q.stride(), *k.shape, *k.stride(), *v.stride(), *out_strides)
    shapes = [list(t.shape) for t in (q, k, v, q)]
    strides = [list(t.stride()) for t in (q, k, v)] + [list(out_strides)]
    rows = (q_rows, config.block_n, config.block_n, q_rows)
    lse_shape = (batch, heads_q, seq_q)
    # Without store_lse the kernel still stores the LSE (a few KB) into a shared scratch
    # that outlives the plan and any graph captured through it (launch.lse_scratch).
    scratch = None if store_lse else lse_scratch(batch * heads_q * seq_q, q.device)
    items = cdiv(seq_q, config.block_m) * batch * heads_q
    # Stage 1 without a key split never touches its merge workspace: fp32 and int32
    # placeholders, taken once; with one, kv_parts per call.
    placeholder = lse_scratch(1, q.device)
    parts = (placeholder, placeholder.view(torch.int32)) if config.kv_ctas == 1 else None
    qk_scale = scale * LOG2E
    launch = PreparedLaunch(launcher, grid, constexprs, num_warps, _TRITON_STAGES, pdl_on())

    def run(q, k, v, out=None, lse=None):
        # Buffers allocated here are aligned like the first run's (q, k, v are, by the plan
        # key); a caller's might not be, so those take Triton's path.
        direct = out is None and lse is None and launch.ready()
        if out is None:
            out = torch.empty_like(q)
        keep = store_lse or lse is not None
        if lse is None:
            lse = q.new_empty(lse_shape, dtype=torch.float32) if store_lse else scratch
        tensors = (q, k, v, out)
        # The dynamic schedule's item counter (persistent causal only), stream-K's tickets and
        # workspace; else placeholders.
        if dynamic:
            tail = (stream_counters(1, q.device), lse)
        elif cut:
            tail = stream_k_parts(config, items, grid[0], build_dim, q.device, causal)
        else:
            tail = (lse, lse) if config.warp_specialize else ()
        if config.warp_specialize:
            tail = (*tail, lse if plan is None else plan)
        if config.warp_specialize:
            buffers = (lse,)
        else:
            buffers = (lse, *(parts or kv_parts(config, items, build_dim, q.device)))
        if direct and launch.maps:
            launch.direct_maps(tensors, (*buffers, qk_scale, *ints, *tail))
        elif direct:
            descs = (_HostDesc(t, shape, stride) for t, shape, stride in zip(tensors, shapes, strides))
            launch.direct((*descs, *buffers, qk_scale, *ints, *tail))
        else:
            descs = (_desc(t, r) for t, r in zip(tensors, rows))
            launch.first((*descs, *buffers, qk_scale, *ints, *tail), spec_key((q, k, v, out, *buffers), key_ints))
        return out, (lse if keep else None)

    return run


def forward(q, k, v, causal: bool, scale: float, config: Config, out=None, lse=None):
    """Launch on inputs that ``supports`` accepted; Sq, Sk and B*H > 0."""
    return prepare(q, k, v, causal, scale, config, out=out)(q, k, v, out, lse)
