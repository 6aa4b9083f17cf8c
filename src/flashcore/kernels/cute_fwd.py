"""CuTe DSL forward for Hopper: a thread-block cluster splits each query block's keys.

Small grids (the seed: B=1-2, H=8, S=512, D=64) fill 64-128 of 132 SMs with one serial
chain per CTA: Q load, four 128-key tiles, epilogue (kernel log v19: 0.82 us per tile on
~2.4 us of fixed cost). Splitting the keys across CTAs through global memory cost more
than it saved (v20: every merge step is an L2 round trip). Here the CTAs that share a
query block form one cluster: each walks its own key tiles, and the partial results
(O, row max, row sum) move to rank 0 over distributed shared memory, behind one cluster
barrier. Triton 3.6's Gluon exposes neither clusters' shared memory nor their barriers;
CuTe DSL does, so this family needs the optional ``flashcore[hopper]`` extra
(``nvidia-cutlass-dsl``, ``apache-tvm-ffi``) and is absent without it.

Status (kernel log v28-v30): correct on every probe shape (O and LSE), in ``dispatch.KERNELS``
(bench provider ``flashcore-cute``, tunable) and picked by ``auto`` for one-wave grids of
385-512 keys at D=64. The seed (bench, graph mode): 4.72 / 4.36 us at B=1 full / causal
(split 2, the partial merged through one DSMEM bulk copy; causal on exclusive SMs, each rank
storing half the rows), 5.60 / 5.44 at B=2 (one CTA, two warpgroups). Rows past a cluster's
shared memory stream through a ring of K/V slots (``Config.stages``, v31; correct at any length).
With ``wgs`` 2-3 the ring has FA3's shape, several consumer warpgroups on one K/V stream with
one copy of their code (v32): 0.89-0.97 of Gluon on long rows, so auto does not pick it.
``persistent`` and ``pinned`` (v32) compile spill-free without wgmma serialization but have not
run on a GPU yet.

Layers, top to bottom: the device kernel, the config, the compile cache, the family's
interface and launcher.
"""

from __future__ import annotations

import dataclasses
import functools
from dataclasses import dataclass

from .launch import pdl_on, tma_layout_problem
from .triton_fwd import SMALL_GRID_CTAS

try:  # the optional extra
    import cutlass
    import cutlass.cute as cute
    import cutlass.utils.hopper_helpers as sm90_utils
    from cutlass import Float32, Int32, const_expr
    from cutlass.cute.nvgpu import cpasync, warpgroup
    from cutlass.experimental.primitives.nvvm_wrapper import cp_async_bulk_shared_cluster_shared_cta
    from cutlass.tensor_utils import LayoutEnum
    from cutlass._mlir.dialects import llvm
    from cutlass.cutlass_dsl import T

    AVAILABLE, MISSING = True, None
except ImportError as error:  # pragma: no cover - exercised where the extra is absent
    AVAILABLE, MISSING = False, error

BLOCK_M = 64  # one warpgroup's wgmma rows
THREADS = 128
LOG2E = 1.4426950408889634
LN2 = 0.6931471805599453
TURN_BARRIER = 5  # named barriers 5-7: the warpgroups' turns (2-4: their O stores)
LAZY_LOG2 = 8.0  # FA4's threshold: O is rescaled once a row's max grows by 2^8


@dataclass(frozen=True)
class Config:
    """One compiled variant. ``split`` CTAs per cluster each take ``tiles`` key tiles."""

    block_n: int = 128
    split: int = 2
    tiles: int = 2
    # Shared memory padded past half an SM's, so no other CTA (of this grid or the next
    # one, launched early by PDL) shares the SM. Causal B=1 seed: 4.81 us against 5.33
    # unpadded; full rows lose 0.14 us (benchmarks/results/2026-11-25-h100-cute-dispatch/3-order/).
    exclusive: bool = False
    # Consumer warpgroups per CTA. Resident tiles: each takes tiles // wgs of the CTA's key
    # tiles for the same 64 rows. A ring: each takes its own 64 rows of a 64 * wgs-row block and
    # all read the same K/V slots (FA3's shape: one copy of the consumer code, a producer
    # warpgroup, registers moved from it to the consumers).
    wgs: int = 1
    # Load the warpgroups' tiles round-robin (0, 2, 1, 3 for two warpgroups of two), so each
    # starts on its first tile at once rather than warpgroup 1 waiting behind 0's tiles.
    interleave: bool = False
    # Split 2, one warpgroup, D=64: each rank finalizes half of the block's rows and stores
    # them, so each direction of the cluster carries half a partial (v30: B=1 causal on
    # exclusive SMs 4.51 -> 4.27 us; full rows 4.65 -> 4.76, so full rows keep rank 0's merge).
    halves: bool = False
    # A ring of this many K/V slots (0: every key tile of the CTA stays resident). The CTA then
    # walks all of its query block's key tiles, so rows of any length fit; the warpgroup frees
    # each slot after its P @ V. Split 1, one warpgroup, tiles 1.
    stages: int = 0
    # A ring's loads come from an extra warp (False: warp 0 of the warpgroup refills each slot
    # once all four warps have freed it, so four 128-thread CTAs can share an SM).
    loader_warp: bool = True
    # Rings: the running max (and so O) is updated only when it grows by more than 2^8 (FA4).
    lazy: bool = False
    # Rings of several warpgroups: they take turns issuing their GEMMs (FA3's ping-pong), so
    # one's softmax runs under another's GEMMs.
    turns: bool = False
    # Rings of several warpgroups: one CTA per SM walks (query block, head) items round robin,
    # a head's blocks side by side; the next item's Q and K/V load under this one's tail, and O
    # leaves through a buffer of its own.
    persistent: bool = False
    # Rings: each exp and each packed pair of P is an opaque asm, so LLVM keeps them where they
    # are written. Without it, a dynamic loop around the consumer (persistent) made LLVM compute
    # every exp twice, and P's packing sank past the next wgmma fence, where ptxas injects
    # warpgroup arrives (C7519, 192 x 96 at D=64) or serializes the wgmmas (C7512); 192 x 128 at
    # D=64 and 176-key tiles at D=128 spilled (v32, offline).
    pinned: bool = False
    # Rings: the unmasked key tiles and the masked ones run in two loops, so no branch sits
    # between a P @ V GEMM's issue and its wait. At the mask's branch ptxas waits for the
    # P @ V GEMM (WARPGROUP.DEPBAR.LE gsb0, 0x0 ahead of the row max's shuffles), so the GEMM
    # no longer runs under the softmax; FA4 and Gluon keep masked tiles in a loop of their own.
    # D=128: 0.89 -> 0.97 of Gluon at S=8k full; D=64 with turns: 2-3% slower (v33), then
    # 0.4-1.7% faster once the ring's slot arithmetic became a mask and a shift (v34).
    straight: bool = False
    # Rings with the lazy rescale: Gluon's order. The tile's row maxes, then the P @ V wait,
    # O's (mostly skipped) rescale, and only then the exps; otherwise the rescale's 32-64
    # FMULs, which ptxas puts after the last exp, sit on the path to the next GEMM issue.
    # Measured within the spread of straight alone (D=128 S=4k causal +1-2%, S=8k full -1-3%;
    # v33), so no default sets it; tune may.
    early: bool = False
    # Resident tiles, split 2 with halves, two warpgroups: each warpgroup takes its own 64 rows
    # (a 128-row block per CTA) over all of the CTA's key tiles, instead of a share of the
    # tiles for the same rows. At B=2 of the seed one query block per CTA had to take all 512
    # keys (136 KB into each SM, ~2.3 us of its ~5.5, v30); two blocks and half the keys per
    # CTA take 80 KB, and each warpgroup exchanges halves with its peer as split 2 does.
    # Measured 5.98 / 6.13 us at B=2 full / causal against the shipped 5.43 / 5.22 (v34): two
    # warpgroups' chains on one SM cost more than the bytes saved. Opt-in only.
    own_rows: bool = False
    # Rings: launch without a cluster (FA4's sm_90 kernel launches none; ours launched clusters
    # of one). v33's Nsight Compute reading had the ring's QK GEMM waiting three times FA4's;
    # launched without one, the rings read within 0-1.3% (v34), so no default sets it.
    clusterless: bool = False
    # Resident tiles: each round of the load order (a tile per warpgroup, at least two tiles)
    # requests its K tiles before its V tiles, so no warpgroup's QK GEMM waits behind a V
    # (FA4's producer order). Causal B=2 seed: 4.88 against 5.04 us (kernel log v57).
    keys_first: bool = False

    def as_dict(self) -> dict:
        return dataclasses.asdict(self)


def _ceil_div(a: int, b: int) -> int:
    return -(-a // b)


if AVAILABLE:

    def _frag_a_layout(block_n: int):
        """The S accumulator's registers, read as the A operand of the P @ V wgmma.

        Per thread, S (m64 x n block_n) holds values ((2 cols, 2 rows, block_n / 8 col groups));
        a 16-key slice of the A operand holds ((2, 2, 2 col groups), 1, block_n / 16). Both
        number their registers in the same order, so the view only regroups modes."""
        return cute.make_layout(((2, 2, 2), 1, block_n // 16), stride=((1, 2, 4), 0, 8))

    @cute.jit
    def _gemm(tiled_mma, acc, a_frag, b_frag, zero_init: cutlass.Constexpr, wait: cutlass.Constexpr = 0):
        """One wgmma group; ``wait`` groups may stay in flight after it (-1: no wait)."""
        warpgroup.fence()
        atom = cute.make_mma_atom(tiled_mma.op)
        atom.set(warpgroup.Field.ACCUMULATE, not zero_init)
        for k in cutlass.range_constexpr(cute.size(a_frag.shape[2])):
            cute.gemm(atom, acc, a_frag[None, None, k], b_frag[None, None, k], acc)
            atom.set(warpgroup.Field.ACCUMULATE, True)
        warpgroup.commit_group()
        if const_expr(wait >= 0):
            warpgroup.wait_group(wait)

    @cute.jit
    def _quad_max(x):
        x = cute.arch.fmax(x, cute.arch.shuffle_sync_bfly(x, offset=1))
        return cute.arch.fmax(x, cute.arch.shuffle_sync_bfly(x, offset=2))

    def _opaque(result_type, operands, text: str, constraints: str):
        """Inline asm with side effects: LLVM may neither duplicate nor move it (``Config.pinned``)."""
        return llvm.inline_asm(result_type, [x.ir_value() for x in operands], text, constraints,
                               has_side_effects=True, is_align_stack=False, asm_dialect=llvm.AsmDialect.AD_ATT)

    def _pack2(lo, hi, name: str):
        """Two fp32 values as one 32-bit pair in the 16-bit dtype, ``lo`` in the low half (PTX's
        cvt puts its first source in the high half), as an opaque asm."""
        return Int32(_opaque(T.i32(), [Float32(hi), Float32(lo)], f"cvt.rn.{name}x2.f32 $0, $1, $2;", "=r,f,f"))

    def _exp2(x, pinned: bool):
        """2^x (ex2.approx.ftz), as an opaque asm when pinned."""
        if pinned:
            return Float32(_opaque(T.f32(), [Float32(x)], "ex2.approx.ftz.f32 $0, $1;", "=f,f"))
        return cute.math.exp2(x, fastmath=True)

    @cute.jit
    def _quad_sum(x):
        x = x + cute.arch.shuffle_sync_bfly(x, offset=1)
        return x + cute.arch.shuffle_sync_bfly(x, offset=2)

    class ClusterSplitForward:
        """Static shape of one build: dtype, head dim, key tile, split, tiles per CTA."""

        def __init__(self, dtype, head_dim: int, config: Config, causal: bool, pdl: bool = True,
                     trace: bool = False, sms: int = 132):
            self.dtype = dtype
            self.head_dim = head_dim
            self.block_n = config.block_n
            self.split = config.split
            self.tiles = config.tiles
            self.wgs = config.wgs
            self.ring = config.stages > 0
            self.slots = config.stages if self.ring else config.tiles  # K/V tiles resident at once
            self.own_rows = config.own_rows
            self.clusterless = config.clusterless
            self.q_slots = config.wgs if self.ring or config.own_rows else 1  # 64-row Q tiles per CTA
            self.block_rows = BLOCK_M * self.q_slots
            # setmaxnreg acts on whole warpgroups, so a ring of several consumer warpgroups
            # loads from a full producer warpgroup (one warp of it works).
            self.producer_wg = self.ring and config.wgs > 1
            per_wg = config.tiles if config.own_rows else config.tiles // config.wgs
            order = list(range(config.tiles))
            if config.interleave:
                order = [w * per_wg + j for j in range(per_wg) for w in range(config.wgs)]
            # (is V, tile) in request order, by rounds of the tile order: K then V per tile, or
            # (keys_first) a round of a tile per warpgroup, at least two, its Ks before its Vs.
            size = max(config.wgs, 2) if config.keys_first else 1
            self.kv_order = [(v, t) for i in range(0, config.tiles, size) for v in (0, 1) for t in order[i:i + size]]
            # Q, K and V per slot, merge, done; a ring adds "K free" and "V free" barriers per
            # slot (K is free after the QK GEMM, a P @ V earlier than V).
            self.n_bars = 3 + 2 * self.slots + (2 * self.slots if self.ring else 0)
            if config.own_rows:  # each warpgroup's own merge and done barriers
                self.n_bars += 2 * (config.wgs - 1)
            self.lazy = config.lazy
            self.turns = config.turns
            self.persistent = config.persistent
            self.pinned = config.pinned
            self.straight = config.straight
            self.early = config.early
            self.sms = sms  # a persistent grid's CTAs
            self.q_free_bar = self.n_bars  # persistent: the consumers are done with Q
            self.n_bars += 1 if self.persistent else 0
            self.halves = config.halves
            self.o_rows = BLOCK_M // 2 if config.halves else BLOCK_M  # rows per O store
            self.loader_warp = self.ring and config.loader_warp
            self.threads = THREADS * config.wgs + (THREADS if self.producer_wg else 32 if self.loader_warp else 0)
            self.parts = config.split * config.wgs - 1  # partials merged into (rank 0, warpgroup 0)
            if config.own_rows:
                self.parts = config.wgs  # one exchange slot per warpgroup
            self.causal = causal
            self.pad = max(_padding(head_dim, config), 16)
            self.pdl = pdl  # the project's switch (launch.pdl_on), fixed per binary
            # A diagnostic build (``build(..., trace=True)``, never the cached one): each
            # warpgroup's first thread writes phase timestamps into the LSE buffer instead of
            # the LSE (``TRACE_EVENTS``; ``TRACE_WORDS`` floats per CTA and warpgroup).
            self.trace = trace

        @cute.jit
        def __call__(self, mQ: cute.Tensor, mK: cute.Tensor, mV: cute.Tensor, mO: cute.Tensor,
                     mLSE: cute.Tensor, scale_log2: Float32, causal_offset: Int32, stream):
            # Tensors arrive as torch holds them, (batch, heads, S, D) with D contiguous, and the
            # LSE as (batch, heads, Sq); the kernel reads them as (S, D, heads, batch) and
            # (Sq, heads, batch). Permuting here, not on the host, saves five views per call.
            mQ, mK, mV, mO = [cute.make_tensor(t.iterator, cute.select(t.layout, mode=[2, 3, 1, 0]))
                              for t in (mQ, mK, mV, mO)]
            mLSE = cute.make_tensor(mLSE.iterator, cute.select(mLSE.layout, mode=[2, 1, 0]))
            d, bn = self.head_dim, self.block_n
            self.tiled_mma_qk = sm90_utils.make_trivial_tiled_mma(
                self.dtype, self.dtype, warpgroup.OperandMajorMode.K, warpgroup.OperandMajorMode.K,
                Float32, atom_layout_mnk=(1, 1, 1), tiler_mn=(BLOCK_M, bn))
            self.tiled_mma_pv = sm90_utils.make_trivial_tiled_mma(
                self.dtype, self.dtype, warpgroup.OperandMajorMode.K, warpgroup.OperandMajorMode.MN,
                Float32, atom_layout_mnk=(1, 1, 1), tiler_mn=(BLOCK_M, d),
                a_source=warpgroup.OperandSource.RMEM)
            atom = warpgroup.make_smem_layout_atom(
                sm90_utils.get_smem_layout_atom(LayoutEnum.ROW_MAJOR, self.dtype, d), self.dtype)
            self.sQ_layout = cute.tile_to_shape(atom, (BLOCK_M, d), order=(0, 1))
            one_q = self.sQ_layout
            if const_expr(self.q_slots > 1):
                self.sQ_layout = cute.tile_to_shape(atom, (BLOCK_M, d, self.q_slots), order=(0, 1, 2))
                one_q = cute.select(self.sQ_layout, mode=[0, 1])
            self.sKV_layout = cute.tile_to_shape(atom, (bn, d, self.slots), order=(0, 1, 2))
            one = cute.select(self.sKV_layout, mode=[0, 1])
            load = cpasync.CopyBulkTensorTileG2SOp()
            tma_q, tma_tensor_q = cpasync.make_tiled_tma_atom(load, mQ, one_q, (BLOCK_M, d))
            tma_k, tma_tensor_k = cpasync.make_tiled_tma_atom(load, mK, one, (bn, d))
            tma_v, tma_tensor_v = cpasync.make_tiled_tma_atom(load, mV, one, (bn, d))
            # O leaves through Q's buffer (free after the last QK GEMM) and one TMA store,
            # which also clips the rows past Sq.
            # With halves each rank stores its half of the block's rows.
            self.sO_layout = cute.tile_to_shape(atom, (self.o_rows, d), order=(0, 1))
            tma_o, tma_tensor_o = cpasync.make_tiled_tma_atom(
                cpasync.CopyBulkTensorTileS2GOp(), mO, self.sO_layout, (self.o_rows, d))
            self.q_bytes = cute.size_in_bytes(self.dtype, one_q)
            self.kv_bytes = cute.size_in_bytes(self.dtype, one)
            # Each thread's partial: the O fragment, then (max, sum) for its two rows.
            self.part_words = d // 2 + 4
            part_floats = max(self.parts, 1) * self.part_words * THREADS
            if const_expr(self.ring):
                part_floats = 4  # nothing to merge

            @cute.struct
            class Storage:
                bars: cute.struct.MemRange[cutlass.Int64, self.n_bars]
                parts: cute.struct.Align[
                    cute.struct.MemRange[Float32, part_floats], 16]
                sQ: cute.struct.Align[cute.struct.MemRange[self.dtype, cute.cosize(self.sQ_layout)], 1024]
                sK: cute.struct.Align[cute.struct.MemRange[self.dtype, cute.cosize(self.sKV_layout)], 1024]
                sV: cute.struct.Align[cute.struct.MemRange[self.dtype, cute.cosize(self.sKV_layout)], 1024]
                pad: cute.struct.MemRange[cutlass.Int8, self.pad]

            self.storage = Storage

            @cute.struct
            class OStorage:  # persistent: O's staging tile, apart from Q's next one
                sO: cute.struct.Align[cute.struct.MemRange[self.dtype, cute.cosize(self.sQ_layout)], 1024]

            self.o_storage = OStorage
            seq_q, heads, batch = mQ.shape[0], mQ.shape[2], mQ.shape[3]
            # Heads vary fastest after the cluster rank, so the query blocks are launched in
            # (reversed, for causal) block order across all heads at once (one wave).
            grid = (self.split, heads * batch, cute.ceil_div(seq_q, self.block_rows))
            cluster = None if self.clusterless else (self.split, 1, 1)
            if const_expr(self.ring):
                # A ring's grid runs in many waves: a head's query blocks launch together
                # (longest first), so its K/V tiles are read from DRAM once and then hit L2.
                # Launched heads-first, every block re-read its head's K/V from DRAM: 2.1x
                # slower, DRAM 87% busy (benchmarks/results/2026-11-25-h100-ring/2-ncu/).
                grid = (1, cute.ceil_div(seq_q, self.block_rows), heads * batch)
                if const_expr(self.persistent):
                    grid = (1, cutlass.min(cute.ceil_div(seq_q, self.block_rows) * heads * batch, self.sms), 1)
            self.kernel(tma_q, tma_tensor_q, tma_k, tma_tensor_k, tma_v, tma_tensor_v, tma_o, tma_tensor_o, mLSE,
                        scale_log2, causal_offset, self.tiled_mma_qk, self.tiled_mma_pv,
                        self.sQ_layout, self.sKV_layout, self.sO_layout).launch(
                grid=grid, block=[self.threads, 1, 1], cluster=cluster, stream=stream, use_pdl=self.pdl)

        @cute.kernel
        def kernel(self, tma_q: cute.CopyAtom, mQ: cute.Tensor, tma_k: cute.CopyAtom, mK: cute.Tensor,
                   tma_v: cute.CopyAtom, mV: cute.Tensor, tma_o: cute.CopyAtom, mO: cute.Tensor,
                   mLSE: cute.Tensor,
                   scale_log2: Float32, causal_offset: Int32, tiled_mma_qk: cute.TiledMma,
                   tiled_mma_pv: cute.TiledMma, sQ_layout: cute.ComposedLayout,
                   sKV_layout: cute.ComposedLayout, sO_layout: cute.ComposedLayout):
            d, bn = self.head_dim, self.block_n
            tidx, _, _ = cute.arch.thread_idx()
            rank, bh, m_block = cute.arch.block_idx()
            if const_expr(self.ring):
                rank, m_block, bh = cute.arch.block_idx()
            warp = cute.arch.make_warp_uniform(cute.arch.warp_idx())
            wg = warp // 4
            ltid = tidx % THREADS  # the thread within its warpgroup
            heads = mQ.shape[2]
            head = bh % heads
            batch = bh // heads
            head_kv = head // (heads // mK.shape[2])
            seq_q, seq_k = mQ.shape[0], mK.shape[0]
            if const_expr(self.causal):  # the blocks with the most keys launch first
                m_block = cute.ceil_div(seq_q, self.block_rows) - 1 - m_block

            if const_expr(self.trace):
                _, _, m_raw = cute.arch.block_idx()
                flat = cute.make_tensor(mLSE.iterator, cute.make_layout(1 << 20))
                base = ((rank + self.split * (bh + mQ.shape[2] * mQ.shape[3] * m_raw)) * self.wgs + wg) * TRACE_WORDS
                self._tr = (flat, base, cute.arch.clock())
                self._stamp(0)
            smem = cutlass.utils.SmemAllocator()
            st = smem.allocate(self.storage)
            bars = st.bars.data_ptr()
            if warp == 0:
                with cute.arch.elect_one():
                    for i in cutlass.range_constexpr(self.n_bars):
                        # A ring slot is free once each consumer warp has read it.
                        # K free, V free (and, persistent, Q free): one arrive per consumer warp
                        free = self.ring and i >= 3 + 2 * self.slots
                        cute.arch.mbarrier_init(bars + i, 4 * self.q_slots if free else 1)
                # TMA copies elect their own thread: the whole warp issues them.
                cpasync.prefetch_descriptor(tma_q)
                cpasync.prefetch_descriptor(tma_k)
                cpasync.prefetch_descriptor(tma_v)
            cute.arch.mbarrier_init_fence()
            # Every CTA of the cluster must be running before one writes another's memory;
            # the matching wait sits after the key loop, where it costs nothing.
            if const_expr(not self.clusterless):
                cute.arch.cluster_arrive_relaxed()
            cute.arch.sync_threads()

            sQ = st.sQ.get_tensor(sQ_layout.outer, swizzle=sQ_layout.inner)
            sO = sQ
            if const_expr(self.persistent):
                sO = smem.allocate(self.o_storage).sO.get_tensor(sQ_layout.outer, swizzle=sQ_layout.inner)
            sK = st.sK.get_tensor(sKV_layout.outer, swizzle=sKV_layout.inner)
            sV = st.sV.get_tensor(sKV_layout.outer, swizzle=sKV_layout.inner)
            sVt = cute.composition(sV, cute.make_ordered_layout((d, bn, self.slots), order=(1, 0, 2)))
            if const_expr(self.ring):
                cute.arch.griddepcontrol_wait()
                if const_expr(not self.clusterless):
                    cute.arch.cluster_wait()  # pairs with the arrive after barrier init
                self._ring(st, warp, tidx, m_block, head, head_kv, batch, seq_q, seq_k, causal_offset,
                           scale_log2, tma_q, mQ, tma_k, mK, tma_v, mV, tma_o, mO, mLSE, tiled_mma_qk,
                           tiled_mma_pv, sQ, sK, sV, sVt, sO)
            else:
                self._resident(st, warp, tidx, rank, wg, ltid, m_block, head, head_kv, batch, seq_q, seq_k,
                               causal_offset, scale_log2, tma_q, mQ, tma_k, mK, tma_v, mV, tma_o, mO, mLSE,
                               tiled_mma_qk, tiled_mma_pv, sQ, sK, sV, sVt, sO_layout)

        @cute.jit
        def _resident(self, st, warp, tidx, rank, wg, ltid, m_block, head, head_kv, batch, seq_q, seq_k,
                      causal_offset, scale_log2, tma_q, mQ, tma_k, mK, tma_v, mV, tma_o, mO, mLSE,
                      tiled_mma_qk, tiled_mma_pv, sQ, sK, sV, sVt, sO_layout):
            """stages == 0: every key tile of the CTA is requested up front, each into its own slot."""
            bn, tiles, wgs = self.block_n, self.tiles, self.wgs
            per_wg = tiles // wgs
            bars = st.bars.data_ptr()

            # Key tiles this CTA owns, clipped to the keys any row of the block can see.
            first = rank * tiles
            key_end = seq_k
            if const_expr(self.causal):
                key_end = cutlass.min(seq_k, (m_block + 1) * self.block_rows + causal_offset)
            n_cta = cutlass.max(cutlass.min(cute.ceil_div(key_end, bn) - first, tiles), 0)
            rows, sQw = m_block, sQ  # this warpgroup's 64-row block and its Q tile
            mine = 0
            if const_expr(self.own_rows):
                # Warpgroup w walks all of the CTA's tiles for rows block 2 * m_block + w.
                rows, sQw, per_wg = m_block * wgs + wg, sQ[None, None, wg], tiles
                n_valid = cutlass.max(cutlass.min(self._n_tiles(rows, seq_k, causal_offset) - first, tiles), 0)
            else:
                # Warpgroup w walks the CTA's tiles w * per_wg ... (w + 1) * per_wg - 1.
                if const_expr(wgs > 1):
                    mine = wg * per_wg
                n_valid = cutlass.max(cutlass.min(n_cta - mine, per_wg), 0)

            cute.arch.griddepcontrol_wait()
            self._stamp(1)
            if warp == 0:
                loads = self._tile_loads(tma_q, mQ, tma_k, mK, tma_v, mV, sQ, sK, sV, m_block, head, head_kv, batch)
                self._load_q(loads, bars, m_block)
                tma_k, (tKs, tKg), tma_v, (tVs, tVg) = loads[2:]
                for is_v, t in self.kv_order:
                    if t < n_cta:
                        with cute.arch.elect_one():
                            cute.arch.mbarrier_arrive_and_expect_tx(bars + 1 + is_v + 2 * t, self.kv_bytes)
                        if const_expr(is_v):
                            cute.copy(tma_v, tVg[None, first + t], tVs[None, t], tma_bar_ptr=bars + 2 + 2 * t)
                        else:
                            cute.copy(tma_k, tKg[None, first + t], tKs[None, t], tma_bar_ptr=bars + 1 + 2 * t)

            (thr_pv, tSrQ, tSrK, tOrV, acc_s, acc_o, p_flat, tOrP, row0, col0, row_max, row_sum,
             alpha) = self._thread_state(tiled_mma_qk, tiled_mma_pv, ltid, warp, rows, sQw, sK, sVt)
            cute.arch.mbarrier_wait(bars, 0)
            self._stamp(2)
            # FA3's order within one warpgroup: tile t's QK and tile t-1's PV are in flight
            # together, and t's softmax runs while the PV GEMM does.
            for j in cutlass.range_constexpr(per_wg):
                if j < n_valid:
                    t = mine + j
                    cute.arch.mbarrier_wait(bars + 1 + 2 * t, 0)
                    if const_expr(j == 0):
                        self._stamp(3)
                        _gemm(tiled_mma_qk, acc_s, tSrQ, tSrK[None, None, None, t], True)
                    else:
                        _gemm(tiled_mma_qk, acc_s, tSrQ, tSrK[None, None, None, t], True, -1)
                        cute.arch.mbarrier_wait(bars + 2 * t, 0)  # V of tile t - 1
                        _gemm(tiled_mma_pv, acc_o, tOrP, tOrV[None, None, None, t - 1], False, -1)
                        warpgroup.wait_group(1)  # QK(t) done, PV(t - 1) may still run
                    self._scores(acc_s, row_max, row_sum, alpha, scale_log2, row0, col0, (first + t) * bn, rows,
                                 seq_k, causal_offset)
                    if const_expr(j > 0):
                        warpgroup.wait_group(0)  # PV(t - 1) has read P and written O
                        self._rescale_o(acc_o, alpha)
                    self._pack_p(acc_s, p_flat)
            self._stamp(4)
            if n_valid > 0:
                last = mine + n_valid - 1
                cute.arch.mbarrier_wait(bars + 2 + 2 * last, 0)
                _gemm(tiled_mma_pv, acc_o, tOrP, tOrV[None, None, None, last], False)
            self._stamp(5)
            cute.arch.griddepcontrol_launch_dependents()
            for r in cutlass.range_constexpr(2):
                row_sum[r] = _quad_sum(row_sum[r])

            if const_expr(self.halves):
                self._exchange_halves(st, rank, wg, ltid, acc_o, row_max, row_sum, head, batch, row0, seq_q,
                                      rows, thr_pv, tma_o, mO, sQw, warp, mLSE, sO_layout)
            else:
                self._merge_and_store(st, rank, wg, ltid, acc_o, row_max, row_sum, head, batch, row0, seq_q,
                                      m_block, thr_pv, tma_o, mO, sQ, warp, mLSE)

        @cute.jit
        def _ring(self, st, warp, tidx, m_block, head, head_kv, batch, seq_q, seq_k, causal_offset,
                  scale_log2, tma_q, mQ, tma_k, mK, tma_v, mV, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv,
                  sQ, sK, sV, sVt, sO):
            """stages > 0: the query block's key tiles stream through the ring, loaded by the
            warp after the consumers (``loader_warp``; with several consumer warpgroups, the
            first warp of a producer warpgroup) or by warp 0 between its GEMMs. The consumer
            warps free a slot's K after their QK GEMM and its V after their P @ V."""
            if const_expr(self.persistent):
                self._persistent(st, warp, tidx, seq_q, seq_k, causal_offset, scale_log2, tma_q, mQ, tma_k, mK,
                                 tma_v, mV, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sV, sVt, sO)
            else:
                self._one_block(st, warp, tidx, m_block, head, head_kv, batch, seq_q, seq_k, causal_offset,
                                scale_log2, tma_q, mQ, tma_k, mK, tma_v, mV, tma_o, mO, mLSE, tiled_mma_qk,
                                tiled_mma_pv, sQ, sK, sV, sVt)

        @cute.jit
        def _one_block(self, st, warp, tidx, m_block, head, head_kv, batch, seq_q, seq_k, causal_offset,
                       scale_log2, tma_q, mQ, tma_k, mK, tma_v, mV, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv,
                       sQ, sK, sV, sVt):
            """A ring that runs the CTA's own query block."""
            stages, wgs = self.slots, self.q_slots
            bars = st.bars.data_ptr()
            # The block's last warpgroup sees the most keys; the others mask what they cannot see.
            n_tiles = self._n_tiles(m_block * wgs + wgs - 1, seq_k, causal_offset)
            loads = self._tile_loads(tma_q, mQ, tma_k, mK, tma_v, mV, sQ, sK, sV, m_block, head, head_kv, batch)
            if const_expr(self.producer_wg):
                if warp >= 4 * wgs:
                    cute.arch.setmaxregister_decrease(PRODUCER_REGS[wgs])
                    if warp == 4 * wgs:
                        self._produce(loads, bars, m_block, n_tiles)
                else:
                    cute.arch.setmaxregister_increase(CONSUMER_REGS[wgs])
                    self._first_turn(warp)
                    self._ring_consume(st, tidx, warp, m_block, head, batch, seq_q, seq_k, causal_offset, scale_log2,
                                       n_tiles, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sVt, loads)
            elif const_expr(self.loader_warp):
                if warp == 4:
                    self._produce(loads, bars, m_block, n_tiles)
                else:
                    self._ring_consume(st, tidx, warp, m_block, head, batch, seq_q, seq_k, causal_offset, scale_log2,
                                       n_tiles, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sVt, loads)
            else:
                if warp == 0:
                    self._load_q(loads, bars)
                    for t in cutlass.range(cutlass.min(n_tiles, stages), unroll=1):
                        self._refill(loads, bars, t)
                self._ring_consume(st, tidx, warp, m_block, head, batch, seq_q, seq_k, causal_offset, scale_log2,
                                   n_tiles, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sVt, loads)

        @cute.jit
        def _persistent(self, st, warp, tidx, seq_q, seq_k, causal_offset, scale_log2, tma_q, mQ, tma_k, mK,
                        tma_v, mV, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sV, sVt, sO):
            """CTA c takes items c, c + grid, ...: item i is query block i % blocks of head
            i // blocks, so the CTAs at work share a few heads' K/V in L2. The ring's slots and
            phases run on across items (``g`` counts the tiles before this item)."""
            wgs = self.q_slots
            bars = st.bars.data_ptr()
            _, cta, _ = cute.arch.block_idx()
            _, step, _ = cute.arch.grid_dim()
            blocks = cute.ceil_div(seq_q, self.block_rows)
            heads = mQ.shape[2]
            count = cute.ceil_div(blocks * heads * mQ.shape[3] - cta, step)
            g = Int32(0)
            if warp >= 4 * wgs:
                cute.arch.setmaxregister_decrease(PRODUCER_REGS[wgs])
                if warp == 4 * wgs:
                    for it in cutlass.range(count, unroll=1):
                        m_block, head, head_kv, batch = self._item(cta + it * step, blocks, heads, mK)
                        n_tiles = self._n_tiles(m_block * wgs + wgs - 1, seq_k, causal_offset)
                        loads = self._tile_loads(tma_q, mQ, tma_k, mK, tma_v, mV, sQ, sK, sV, m_block, head, head_kv,
                                                 batch)
                        if it > 0:
                            cute.arch.mbarrier_wait(bars + self.q_free_bar, (it - 1) % 2)
                        self._produce(loads, bars, m_block, n_tiles, g)
                        g = g + n_tiles
            else:
                cute.arch.setmaxregister_increase(CONSUMER_REGS[wgs])
                self._first_turn(warp)
                # Fragments and accumulators are made once and reset per item.
                state = self._thread_state(tiled_mma_qk, tiled_mma_pv, tidx % THREADS, warp, Int32(0),
                                           sQ[None, None, warp // 4], sK, sVt)
                for it in cutlass.range(count, unroll=1):
                    m_block, head, head_kv, batch = self._item(cta + it * step, blocks, heads, mK)
                    n_tiles = self._n_tiles(m_block * wgs + wgs - 1, seq_k, causal_offset)
                    self._ring_consume(st, tidx, warp, m_block, head, batch, seq_q, seq_k, causal_offset, scale_log2,
                                       n_tiles, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sVt, None, g, it,
                                       sO, state)
                    g = g + n_tiles

        @cute.jit
        def _produce(self, loads, bars, m_block, n_tiles, g=None):
            """Q's block, then its key tiles into the ring from position g (default 0)."""
            self._load_q(loads, bars, m_block)
            for t in cutlass.range(n_tiles, unroll=1):
                if const_expr(g is None):
                    self._refill(loads, bars, t)
                else:
                    self._refill(loads, bars, t, g + t)

        @cute.jit
        def _item(self, i, blocks, heads, mK):
            """Item i's (query block, head, K/V head, batch); causal blocks run longest first."""
            bh = i // blocks
            m_block = i - bh * blocks
            if const_expr(self.causal):
                m_block = blocks - 1 - m_block
            head = bh % heads
            return m_block, head, head // (heads // mK.shape[2]), bh // heads

        @cute.jit
        def _first_turn(self, warp):
            """With turns, the last warpgroup lets warpgroup 0 go first (once per CTA)."""
            if const_expr(self.turns and self.q_slots > 1):
                if warp // 4 == self.q_slots - 1:
                    self._pass_turn(warp // 4)

        @cute.jit
        def _tile_loads(self, tma_q, mQ, tma_k, mK, tma_v, mV, sQ, sK, sV, m_block, head, head_kv, batch):
            """(atom, (smem, gmem) partition) for Q's block and for K's and V's key tiles."""
            d, bn = self.head_dim, self.block_n
            gQ = cute.local_tile(mQ[None, None, head, batch], (BLOCK_M, d), (m_block, 0))
            if const_expr(self.q_slots > 1):  # every 64-row tile; _load_q picks the block's
                gQ = cute.local_tile(mQ[None, None, head, batch], (BLOCK_M, d), (None, 0))
            gK = cute.local_tile(mK[None, None, head_kv, batch], (bn, d), (None, 0))
            gV = cute.local_tile(mV[None, None, head_kv, batch], (bn, d), (None, 0))
            one = cute.make_layout(1)
            return (tma_q, cpasync.tma_partition(tma_q, 0, one, cute.group_modes(sQ, 0, 2), cute.group_modes(gQ, 0, 2)),
                    tma_k, cpasync.tma_partition(tma_k, 0, one, cute.group_modes(sK, 0, 2), cute.group_modes(gK, 0, 2)),
                    tma_v, cpasync.tma_partition(tma_v, 0, one, cute.group_modes(sV, 0, 2), cute.group_modes(gV, 0, 2)))

        @cute.jit
        def _thread_state(self, tiled_mma_qk, tiled_mma_pv, ltid, warp, m_block, sQ, sK, sVt):
            """The warpgroup thread's GEMM fragments, zeroed O, its rows (row0, row0 + 8) and their
            running max and sum."""
            d, bn = self.head_dim, self.block_n
            thr_qk = tiled_mma_qk.get_slice(ltid)
            thr_pv = tiled_mma_pv.get_slice(ltid)
            tSrQ = thr_qk.make_fragment_A(thr_qk.partition_A(sQ))
            tSrK = thr_qk.make_fragment_B(thr_qk.partition_B(sK))
            tOrV = thr_pv.make_fragment_B(thr_pv.partition_B(sVt))
            acc_s = cute.make_rmem_tensor(thr_qk.partition_shape_C((BLOCK_M, bn)), Float32)
            acc_o = cute.make_rmem_tensor(thr_pv.partition_shape_C((BLOCK_M, d)), Float32)
            acc_o.fill(0.0)
            p_flat = cute.make_rmem_tensor(acc_s.layout, self.dtype)
            tOrP = cute.make_tensor(p_flat.iterator, _frag_a_layout(bn))
            lane = ltid % 32
            row0 = m_block * BLOCK_M + (warp % 4) * 16 + lane // 4
            col0 = 2 * (lane % 4)
            row_max = cute.make_rmem_tensor((2,), Float32)
            row_sum = cute.make_rmem_tensor((2,), Float32)
            row_max.fill(-Float32.inf)
            row_sum.fill(0.0)
            alpha = cute.make_rmem_tensor((2,), Float32)
            return thr_pv, tSrQ, tSrK, tOrV, acc_s, acc_o, p_flat, tOrP, row0, col0, row_max, row_sum, alpha

        @cute.jit
        def _load_q(self, loads, bars, m_block=None):
            """Q's block on barrier 0; with several Q tiles, block ``m_block``'s 64-row tiles."""
            tma_q, (tQs, tQg) = loads[0], loads[1]
            with cute.arch.elect_one():
                cute.arch.mbarrier_arrive_and_expect_tx(bars, self.q_bytes * self.q_slots)
            if const_expr(self.q_slots > 1):
                for w in cutlass.range_constexpr(self.q_slots):
                    cute.copy(tma_q, tQg[None, m_block * self.q_slots + w], tQs[None, w], tma_bar_ptr=bars)
            else:
                cute.copy(tma_q, tQg, tQs, tma_bar_ptr=bars)

        @cute.jit
        def _refill(self, loads, bars, t, g=None):
            """Key tile t into ring position g (default t): K once the slot's previous K is free,
            then V once its previous V is."""
            tma_k, (tKs, tKg), tma_v, (tVs, tVg) = loads[2], loads[3], loads[4], loads[5]
            stages = self.slots
            if const_expr(g is None):
                g = t
            s, phase = self._ring_pos(g)
            phase = phase ^ 1  # the slot's previous round
            if g >= stages:
                cute.arch.mbarrier_wait(bars + 3 + 2 * stages + s, phase)
            with cute.arch.elect_one():
                cute.arch.mbarrier_arrive_and_expect_tx(bars + 1 + 2 * s, self.kv_bytes)
            cute.copy(tma_k, tKg[None, t], tKs[None, s], tma_bar_ptr=bars + 1 + 2 * s)
            if g >= stages:
                cute.arch.mbarrier_wait(bars + 3 + 3 * stages + s, phase)
            with cute.arch.elect_one():
                cute.arch.mbarrier_arrive_and_expect_tx(bars + 2 + 2 * s, self.kv_bytes)
            cute.copy(tma_v, tVg[None, t], tVs[None, s], tma_bar_ptr=bars + 2 + 2 * s)

        @cute.jit
        def _ring_consume(self, st, tidx, warp, m_block, head, batch, seq_q, seq_k, causal_offset, scale_log2,
                          n_tiles, tma_o, mO, mLSE, tiled_mma_qk, tiled_mma_pv, sQ, sK, sVt, loads, g=0, it=0,
                          sO=None, state=None):
            """The warpgroup's side of the ring for one query block: FA3's order (tile j's QK GEMM
            and tile j - 1's P @ V in flight together), then the O store. The block's tiles take
            ring positions g, g + 1, ...; its Q is the CTA's item ``it`` (persistent)."""
            bn, stages = self.block_n, self.slots
            bars = st.bars.data_ptr()
            k_free, v_free = bars + 3 + 2 * stages, bars + 3 + 3 * stages
            ltid, sQw, bar_id, leader = tidx, sQ, 2, warp
            wg = warp // 4
            if const_expr(self.q_slots > 1):
                # Warpgroup wg runs this block's 64-row tile wg as a block of its own.
                m_block = m_block * self.q_slots + wg
                ltid, sQw, bar_id, leader = tidx % THREADS, sQ[None, None, wg], 2 + wg, warp % 4
            sOw = sQw
            if const_expr(self.persistent):
                sOw = sO[None, None, wg]
            if const_expr(state is None):
                (thr_pv, tSrQ, tSrK, tOrV, acc_s, acc_o, p_flat, tOrP, row0, col0, row_max, row_sum,
                 alpha) = self._thread_state(tiled_mma_qk, tiled_mma_pv, ltid, warp, m_block, sQw, sK, sVt)
            else:  # made for block 0, reset for this one
                thr_pv, tSrQ, tSrK, tOrV, acc_s, acc_o, p_flat, tOrP, row0, col0, row_max, row_sum, alpha = state
                row0 = row0 + m_block * BLOCK_M
                acc_o.fill(0.0)
                row_max.fill(-Float32.inf)
                row_sum.fill(0.0)
            cute.arch.mbarrier_wait(bars, it % 2)
            if n_tiles > 0:
                s0, phase0 = self._ring_pos(g)
                cute.arch.mbarrier_wait(bars + 1 + 2 * s0, phase0)
                self._take_turn(wg)
                _gemm(tiled_mma_qk, acc_s, tSrQ, tSrK[None, None, None, s0], True, -1)
                self._pass_turn(wg)
                warpgroup.wait_group(0)
                self._free_slot(k_free + s0)
                self._scores(acc_s, row_max, row_sum, alpha, scale_log2, row0, col0, 0, m_block, seq_k,
                                  causal_offset)
                self._pack_p(acc_s, p_flat)
                step = (g, bars, warp, wg, loads, n_tiles, tiled_mma_qk, tiled_mma_pv, tSrQ, tSrK, tOrP, tOrV,
                        acc_s, acc_o, p_flat, row_max, row_sum, alpha, scale_log2, row0, col0, m_block, seq_k,
                        causal_offset)
                if const_expr(self.straight):
                    n_plain = self._plain_tiles(m_block, seq_k, causal_offset, n_tiles)
                    for j in cutlass.range(1, n_plain, unroll=1):
                        self._ring_step(j, False, *step)
                    for j in cutlass.range(cutlass.max(n_plain, 1), n_tiles, unroll=1):
                        self._ring_step(j, True, *step)
                else:
                    for j in cutlass.range(1, n_tiles, unroll=1):
                        self._ring_step(j, None, *step)
                last, phase = self._ring_pos(g + n_tiles - 1)
                cute.arch.mbarrier_wait(bars + 2 + 2 * last, phase)
                _gemm(tiled_mma_pv, acc_o, tOrP, tOrV[None, None, None, last], False)
                self._free_slot(v_free + last)
            if const_expr(self.persistent):
                self._free_slot(bars + self.q_free_bar)  # the producer may load the next Q
            cute.arch.griddepcontrol_launch_dependents()
            for r in cutlass.range_constexpr(2):
                row_sum[r] = _quad_sum(row_sum[r])
            self._store_lse(mLSE, row_max, row_sum, row0, seq_q, head, batch, ltid)
            self._store(acc_o, row_sum, m_block, thr_pv, tma_o, mO[None, None, head, batch], sOw, leader, bar_id)

        @cute.jit
        def _ring_step(self, j, masked: cutlass.Constexpr, g, bars, warp, wg, loads, n_tiles, tiled_mma_qk, tiled_mma_pv,
                       tSrQ, tSrK, tOrP, tOrV, acc_s, acc_o, p_flat, row_max, row_sum, alpha, scale_log2, row0,
                       col0, m_block, seq_k, causal_offset):
            """Ring tile j > 0: QK(j) and P @ V(j - 1) in flight together, then tile j's softmax
            (``masked``: see ``_mask_if``)."""
            bn, stages = self.block_n, self.slots
            k_free, v_free = bars + 3 + 2 * stages, bars + 3 + 3 * stages
            s, phase = self._ring_pos(g + j)
            prev, prev_phase = self._ring_pos(g + j - 1)
            cute.arch.mbarrier_wait(bars + 1 + 2 * s, phase)
            if const_expr(self.turns):  # both tiles in before the turn is taken
                cute.arch.mbarrier_wait(bars + 2 + 2 * prev, prev_phase)
            self._take_turn(wg)
            _gemm(tiled_mma_qk, acc_s, tSrQ, tSrK[None, None, None, s], True, -1)
            if const_expr(not self.turns):
                cute.arch.mbarrier_wait(bars + 2 + 2 * prev, prev_phase)
            _gemm(tiled_mma_pv, acc_o, tOrP, tOrV[None, None, None, prev], False, -1)
            self._pass_turn(wg)
            warpgroup.wait_group(1)  # QK(j) done, PV(j - 1) may still run
            self._free_slot(k_free + s)
            if const_expr(self.early):
                self._mask_if(acc_s, row0, col0, j * bn, m_block, seq_k, causal_offset, masked)
                base0 = self._new_max(acc_s, 0, row_max, alpha, scale_log2)
                base1 = self._new_max(acc_s, 1, row_max, alpha, scale_log2)
                warpgroup.wait_group(0)  # PV(j - 1) has read P and its slot
                self._rescale_o(acc_o, alpha)
                row_sum[0] = row_sum[0] * alpha[0] + self._row_exps(acc_s, 0, base0, scale_log2)
                row_sum[1] = row_sum[1] * alpha[1] + self._row_exps(acc_s, 1, base1, scale_log2)
            else:
                self._scores(acc_s, row_max, row_sum, alpha, scale_log2, row0, col0, j * bn, m_block,
                             seq_k, causal_offset, masked)
                warpgroup.wait_group(0)  # PV(j - 1) has read P and its slot
            self._free_slot(v_free + prev)
            if const_expr(not self.loader_warp):
                if warp == 0 and j - 1 + stages < n_tiles:
                    self._refill(loads, bars, j - 1 + stages)
            if const_expr(self.early):
                self._pack_p(acc_s, p_flat)
            elif const_expr(self.pinned):
                # P first: a lazy rescale's branch would otherwise hold all of P's packing
                # until after it (unpinned lazy builds pack after the branch, v32).
                self._pack_p(acc_s, p_flat)
                self._rescale_o(acc_o, alpha)
            else:
                self._rescale_o(acc_o, alpha)
                self._pack_p(acc_s, p_flat)

        def _ring_pos(self, pos):
            """(slot, phase) of ring position ``pos`` >= 0. A power-of-two ring takes a mask and a
            shift: signed % and // cost sign fix-ups on every tile."""
            stages = self.slots
            if const_expr(stages & (stages - 1) == 0):
                return pos & (stages - 1), (pos >> (stages.bit_length() - 1)) & 1
            return pos % stages, (pos // stages) % 2

        def _plain_tiles(self, m_block, seq_k, causal_offset, n_tiles):
            """How many of the block's first key tiles need no mask: whole tiles that no row of
            this warpgroup's 64 sees past its diagonal."""
            n = seq_k // self.block_n
            if const_expr(self.causal):
                n = cutlass.min(n, cutlass.max(m_block * BLOCK_M + causal_offset + 1, 0) // self.block_n)
            return cutlass.min(n, n_tiles)

        @cute.jit
        def _mask_if(self, acc_s, row0, col0, key0, m_block, seq_k, causal_offset, masked: cutlass.Constexpr):
            """``masked``: True masks with selects, False not at all, None only tiles past the
            last key or across the diagonal (a branch)."""
            if const_expr(masked is None):
                ragged = key0 + self.block_n > seq_k
                if const_expr(self.causal):
                    ragged = ragged or key0 + self.block_n - 1 > m_block * BLOCK_M + causal_offset
                if ragged:
                    self._mask(acc_s, row0, key0 + col0, seq_k, causal_offset)
            elif const_expr(masked):
                self._mask(acc_s, row0, key0 + col0, seq_k, causal_offset)

        @cute.jit
        def _scores(self, acc_s, row_max, row_sum, alpha, scale_log2, row0, col0, key0, m_block, seq_k,
                         causal_offset, masked: cutlass.Constexpr = None):
            """The mask (``_mask_if``), then the softmax."""
            self._mask_if(acc_s, row0, col0, key0, m_block, seq_k, causal_offset, masked)
            self._softmax_scores(acc_s, row_max, row_sum, alpha, scale_log2)

        @cute.jit
        def _pack_p(self, acc_s, p_flat):
            """P in the input dtype into the PV GEMM's A registers (pinned: pairwise opaque asm)."""
            if const_expr(self.pinned):
                p32 = cute.recast_tensor(p_flat, Int32)
                name = "bf16" if const_expr(self.dtype == cutlass.BFloat16) else "f16"
                for k in cutlass.range_constexpr(cute.size(p32)):
                    p32[k] = _pack2(acc_s[2 * k], acc_s[2 * k + 1], name)
            else:
                p_flat.store(acc_s.load().to(self.dtype))

        @cute.jit
        def _take_turn(self, wg):
            """With turns, wait until the previous warpgroup has issued its GEMMs."""
            if const_expr(self.turns and self.q_slots > 1):
                cute.arch.barrier(barrier_id=TURN_BARRIER + wg, number_of_threads=2 * THREADS)

        @cute.jit
        def _pass_turn(self, wg):
            """With turns, let the next warpgroup issue its GEMMs."""
            if const_expr(self.turns and self.q_slots > 1):
                nxt = wg + 1 if wg < self.q_slots - 1 else 0
                cute.arch.barrier_arrive(barrier_id=TURN_BARRIER + nxt, number_of_threads=2 * THREADS)

        @cute.jit
        def _free_slot(self, slot):
            """One arrive per consumer warp on the slot's barrier."""
            with cute.arch.elect_one():
                cute.arch.mbarrier_arrive(slot)

        @cute.jit
        def _n_tiles(self, block, seq_k, causal_offset):
            """Key tiles query block ``block`` sees."""
            key_end = seq_k
            if const_expr(self.causal):
                key_end = cutlass.min(seq_k, (block + 1) * BLOCK_M + causal_offset)
            return cutlass.max(cute.ceil_div(key_end, self.block_n), 0)

        @cute.jit
        def _stamp(self, k: cutlass.Constexpr, leader=None):
            """Event k's %globaltimer (low 24 bits) and %clock since entry, from each warpgroup's
            first thread (or from thread ``leader``)."""
            if const_expr(self.trace):
                flat, base, c0 = self._tr
                tidx, _, _ = cute.arch.thread_idx()
                first = tidx % THREADS == 0
                if const_expr(leader is not None):
                    first = tidx == leader
                if first:
                    g = cute.arch.globaltimer_lo() & 0xFFFFFF
                    flat[base + 2 * k] = g.to(Float32)
                    flat[base + 2 * k + 1] = (cute.arch.clock() - c0).to(Float32)

        @cute.jit
        def _stamp_place(self, m_block):
            if const_expr(self.trace):
                flat, base, _ = self._tr
                tidx, _, _ = cute.arch.thread_idx()
                if tidx % THREADS == 0:
                    flat[base + 18] = cute.arch.smid().to(Float32)
                    flat[base + 19] = m_block.to(Float32)

        @staticmethod
        def _part(parts, tidx, i, slot):
            return parts[i % 4, tidx, i // 4, slot]

        @cute.jit
        def _mask(self, acc_s, row0, col0, seq_k, causal_offset):
            bn = self.block_n
            for r in cutlass.range_constexpr(2):
                # Columns at or past the row's limit are masked; a select, not a branch
                # (the branchy version cost 2.6x at the seed).
                limit = seq_k - col0
                if const_expr(self.causal):
                    limit = cutlass.min(limit, row0 + 8 * r + causal_offset + 1 - col0)
                for g in cutlass.range_constexpr(bn // 8):
                    for c in cutlass.range_constexpr(2):
                        i = c + 2 * r + 4 * g
                        acc_s[i] = -Float32.inf if 8 * g + c >= limit else acc_s[i]

        @cute.jit
        def _softmax_scores(self, acc_s, row_max, row_sum, alpha, scale_log2):
            """Scores to probabilities in place; ``alpha`` gets each row's O rescale."""
            for r in cutlass.range_constexpr(2):
                base = self._new_max(acc_s, r, row_max, alpha, scale_log2)
                row_sum[r] = row_sum[r] * alpha[r] + self._row_exps(acc_s, r, base, scale_log2)

        @cute.jit
        def _new_max(self, acc_s, r: cutlass.Constexpr, row_max, alpha, scale_log2):
            """Row r's running max and O rescale (``alpha[r]``); returns what its exps subtract."""
            bn = self.block_n
            top = -Float32.inf
            for g in cutlass.range_constexpr(bn // 8):
                for c in cutlass.range_constexpr(2):
                    top = cute.arch.fmax(top, acc_s[c + 2 * r + 4 * g])
            top = _quad_max(top) * scale_log2
            new_max = cute.arch.fmax(row_max[r], top)
            if const_expr(self.lazy):
                # FA4's lazy rescale: the stale max stands until the new one passes it by
                # more than LAZY_LOG2 (p then stays under 2^LAZY_LOG2), so most tiles skip
                # the O rescale (alpha = 1).
                new_max = top if top > row_max[r] + LAZY_LOG2 else row_max[r]
            # A row that has seen no key yet keeps max -inf: subtract 0, not -inf.
            base = new_max if new_max != -Float32.inf else Float32(0.0)
            alpha[r] = cute.math.exp2(row_max[r] - base, fastmath=True)
            if const_expr(self.lazy):
                alpha[r] = alpha[r] if new_max != row_max[r] else Float32(1.0)  # exactly: no rescale
            row_max[r] = new_max
            return base

        @cute.jit
        def _row_exps(self, acc_s, r: cutlass.Constexpr, base, scale_log2):
            """Row r's probabilities in place; returns their sum."""
            total = Float32(0.0)
            for g in cutlass.range_constexpr(self.block_n // 8):
                for c in cutlass.range_constexpr(2):
                    i = c + 2 * r + 4 * g
                    p = _exp2(acc_s[i] * scale_log2 - base, self.pinned)
                    acc_s[i] = p
                    total = total + p
            return total

        @cute.jit
        def _rescale_o(self, acc_o, alpha):
            """O's rows times their alpha; lazily, only in warps where some row's max moved. The
            test is a warp vote so that the branch is uniform: a per-thread branch diverged and
            its predicated multiplies still issued (0.86 of the eager rescale's speed, run 3)."""
            if const_expr(self.lazy):
                if cute.arch.vote_any_sync(alpha[0] != 1.0 or alpha[1] != 1.0):
                    for r in cutlass.range_constexpr(2):
                        self._scale_row(acc_o, r, alpha[r])
            else:
                for r in cutlass.range_constexpr(2):
                    self._scale_row(acc_o, r, alpha[r])

        @cute.jit
        def _scale_row(self, acc_o, r: cutlass.Constexpr, factor):
            """Multiplies the thread's row ``r`` (0: row0, 1: row0 + 8) of O by ``factor``."""
            for g in cutlass.range_constexpr(self.head_dim // 8):
                for c in cutlass.range_constexpr(2):
                    acc_o[c + 2 * r + 4 * g] = acc_o[c + 2 * r + 4 * g] * factor

        @cute.jit
        def _merge_and_store(self, st, rank, wg, ltid, acc_o, row_max, row_sum, head, batch, row0, seq_q,
                             m_block, thr_pv, tma_o, mO, sO, warp, mLSE):
            """Every (rank, warpgroup) but (0, 0) leaves its partial in rank 0's shared memory:
            other CTAs as one DSMEM bulk copy each (counted on rank 0's merge barrier; rank 0
            then releases them to exit), rank 0's own other warpgroups with plain stores behind a
            named barrier. (0, 0) merges and stores."""
            words, wgs = self.part_words, self.wgs
            parts, merge_bar, done_bar = self._partials(st, max(self.parts, 1))
            index = rank * wgs + wg  # the partial's slot is index - 1
            cute.arch.cluster_wait()  # pairs with the arrive after barrier init
            if const_expr(self.parts > 0):
                if index > 0:
                    if rank > 0:
                        # Staged in this CTA's own slot wg, then one bulk copy to rank 0's slot:
                        # 16-byte st.async stores, each counted on rank 0's barrier, took 0.2-0.3 us
                        # longer (v30).
                        self._stage_partial(parts, ltid, wg, acc_o, row_max, row_sum)
                        cute.arch.fence_view_async_shared()  # generic writes, read by the bulk copy
                        cute.arch.barrier(barrier_id=3 + wg, number_of_threads=THREADS)
                        if ltid == 0:
                            cp_async_bulk_shared_cluster_shared_cta(
                                cute.arch.map_dsmem_ptr(parts[None, 0, 0, index - 1].iterator, 0),
                                parts[None, 0, 0, wg].iterator,
                                cute.arch.map_dsmem_ptr(merge_bar, 0), THREADS * words * 4)
                        cute.arch.mbarrier_wait(done_bar, 0)  # the source stays alive until it has landed
                    else:
                        self._stage_partial(parts, ltid, index - 1, acc_o, row_max, row_sum)
                        cute.arch.barrier_arrive(barrier_id=1, number_of_threads=self.threads)
                else:
                    if const_expr(self.split > 1):
                        if ltid == 0:
                            cute.arch.mbarrier_arrive_and_expect_tx(
                                merge_bar, (self.split - 1) * wgs * THREADS * words * 4)
                        cute.arch.mbarrier_wait(merge_bar, 0)
                        if ltid == 0:
                            for peer in cutlass.range_constexpr(1, self.split):
                                cute.arch.mbarrier_arrive(done_bar, peer)
                    if const_expr(wgs > 1):
                        cute.arch.barrier(barrier_id=1, number_of_threads=self.threads)
                    self._merge_rows(acc_o, row_max, row_sum, parts, ltid, 0, self.parts)
            self._stamp(6)
            self._stamp_place(m_block)
            if index == 0:
                self._store_lse(mLSE, row_max, row_sum, row0, seq_q, head, batch, ltid)
                self._store(acc_o, row_sum, m_block, thr_pv, tma_o, mO[None, None, head, batch], sO, warp)

        def _partials(self, st, slots: int):
            """The partials' buffer, (4, THREADS, words / 4, slots): each thread's partial is
            contiguous and a slot is THREADS * words floats; with the merge and done barriers."""
            words = self.part_words
            parts = st.parts.get_tensor(
                cute.make_layout((4, THREADS, words // 4, slots), stride=(1, words, 4, THREADS * words)))
            merge_bar = st.bars.data_ptr() + 2 * self.tiles + 1
            return parts, merge_bar, merge_bar + 1  # done: the receiver has this CTA's partials

        @cute.jit
        def _stage_partial(self, parts, pos, slot, acc_o, row_max, row_sum):
            """This thread's partial (the O fragment, then max and sum of its two rows) into
            thread position ``pos`` of ``slot``."""
            d, words = self.head_dim, self.part_words
            mine = cute.make_rmem_tensor((words,), Float32)
            for i in cutlass.range_constexpr(d // 2):
                mine[i] = acc_o[i]
            for r in cutlass.range_constexpr(2):
                mine[d // 2 + r] = row_max[r]
                mine[d // 2 + 2 + r] = row_sum[r]
            for i in cutlass.range_constexpr(words):
                parts[i % 4, pos, i // 4, slot] = mine[i]

        @cute.jit
        def _merge_rows(self, acc_o, row_max, row_sum, parts, pos, first: cutlass.Constexpr, count: cutlass.Constexpr):
            """Folds the partials in slots first ... first + count - 1 (thread position ``pos``)
            into this thread's O, row max and row sum."""
            d = self.head_dim
            for r in cutlass.range_constexpr(2):
                top = row_max[r]
                for s in cutlass.range_constexpr(first, first + count):
                    top = cute.arch.fmax(top, self._part(parts, pos, d // 2 + r, s))
                base = top if top != -Float32.inf else Float32(0.0)
                own = cute.math.exp2(row_max[r] - base, fastmath=True)
                total = row_sum[r] * own
                self._scale_row(acc_o, r, own)
                for s in cutlass.range_constexpr(first, first + count):
                    w = cute.math.exp2(self._part(parts, pos, d // 2 + r, s) - base, fastmath=True)
                    total = total + self._part(parts, pos, d // 2 + 2 + r, s) * w
                    for g in cutlass.range_constexpr(d // 8):
                        for c in cutlass.range_constexpr(2):
                            i = c + 2 * r + 4 * g
                            acc_o[i] = acc_o[i] + self._part(parts, pos, i, s) * w
                row_sum[r] = total
                row_max[r] = top

        @cute.jit
        def _exchange_halves(self, st, rank, wg, ltid, acc_o, row_max, row_sum, head, batch, row0, seq_q,
                             m_block, thr_pv, tma_o, mO, sQ, warp, mLSE, sO_layout):
            """Split 2: rank r keeps rows 32 r ... 32 r + 31 of the warpgroup's 64-row block
            ``m_block`` (warps 2 r, 2 r + 1 of the warpgroup). Its other two warps stage their
            partial in thread positions 0-63 of the warpgroup's slot and send it in one bulk copy
            to positions 64-127 of the peer's, where the peer's keepers of the same rows merge it.
            Each rank then writes its rows' LSE and stores its half from the block's Q tile ``sQ``.
            Several warpgroups (``own_rows``) each exchange their own block: slot, barriers and
            named barriers per warpgroup."""
            d, words = self.head_dim, self.part_words
            parts, merge_bar, done_bar = self._partials(st, max(self.parts, 1))
            slot = 0
            if const_expr(self.own_rows):
                # The warpgroup's slot, as slot 0 of a view that starts there (the merge's slot
                # indices are compile-time).
                slot = wg
                parts = cute.make_tensor(parts.iterator + wg * THREADS * words, parts.layout)
                merge_bar, done_bar = merge_bar + 2 * wg, done_bar + 2 * wg
            pos = ltid % 64  # the same rows' thread in the peer's warpgroup has the same position
            keeper = (warp % 4) // 2 == rank
            half_bytes = 64 * words * 4
            cute.arch.cluster_wait()  # pairs with the arrive after barrier init
            if keeper:
                if pos == 0:
                    cute.arch.mbarrier_arrive_and_expect_tx(merge_bar, half_bytes)
                cute.arch.mbarrier_wait(merge_bar, 0)
                if pos == 0:
                    cute.arch.mbarrier_arrive(done_bar, 1 - rank)
                self._merge_rows(acc_o, row_max, row_sum, parts, 64 + pos, 0, 1)
                self._stamp(6, 64 * rank)
                self._store_lse(mLSE, row_max, row_sum, row0, seq_q, head, batch, ltid)
                self._normalize_into(acc_o, row_sum, thr_pv, sQ)
                cute.arch.fence_view_async_shared()  # the generic-proxy writes, seen by TMA
                cute.arch.barrier(barrier_id=2 + 2 * slot, number_of_threads=64)  # the keepers only
                self._stamp(7, 64 * rank)
                if warp % 4 == 2 * rank:
                    gO = mO[None, None, head, batch]
                    outer, inner = sO_layout.outer, sO_layout.inner
                    # Rows 32 r ... 32 r + 31 of the slot's 64 x 64 tile are one block of memory (D=64).
                    base = st.sQ.data_ptr()
                    if const_expr(self.own_rows):
                        base = base + slot * BLOCK_M * d
                    if rank == 0:
                        self._tma_store(tma_o, gO, 2 * m_block, cute.make_tensor(cute.recast_ptr(base, inner), outer))
                    else:
                        self._tma_store(tma_o, gO, 2 * m_block + 1, cute.make_tensor(
                            cute.recast_ptr(base + (BLOCK_M // 2) * d, inner), outer))
                    self._stamp(8, 64 * rank)
            else:
                self._stage_partial(parts, pos, 0, acc_o, row_max, row_sum)
                cute.arch.fence_view_async_shared()  # generic writes, read by the bulk copy
                cute.arch.barrier(barrier_id=3 + 2 * slot, number_of_threads=64)  # the senders only
                if pos == 0:
                    cp_async_bulk_shared_cluster_shared_cta(
                        cute.arch.map_dsmem_ptr(parts[None, 64, 0, 0].iterator, 1 - rank),
                        parts[None, 0, 0, 0].iterator,
                        cute.arch.map_dsmem_ptr(merge_bar, 1 - rank), half_bytes)
                cute.arch.mbarrier_wait(done_bar, 0)  # the source stays alive until it has landed
            self._stamp_place(m_block)

        @cute.jit
        def _store_lse(self, mLSE, row_max, row_sum, row0, seq_q, head, batch, ltid):
            """The natural-log LSE of this thread's two rows (a traced build keeps its stamps there)."""
            if const_expr(not self.trace):
                if ltid % 4 == 0:  # a quad shares its two rows
                    for r in cutlass.range_constexpr(2):
                        if row0 + 8 * r < seq_q:
                            mLSE[row0 + 8 * r, head, batch] = (
                                row_max[r] + cute.math.log2(row_sum[r], fastmath=True)) * LN2

        @cute.jit
        def _normalize_into(self, acc_o, row_sum, thr_pv, sO):
            """O / row sum, in the output dtype, into this thread's part of the staging tile."""
            for r in cutlass.range_constexpr(2):
                inv = Float32(0.0)
                if row_sum[r] > 0.0:
                    inv = cute.arch.rcp_approx(row_sum[r])
                self._scale_row(acc_o, r, inv)
            o16 = cute.make_rmem_tensor(acc_o.layout, self.dtype)
            o16.store(acc_o.load().to(self.dtype))
            cute.autovec_copy(o16, thr_pv.partition_C(sO))

        @cute.jit
        def _tma_store(self, tma_o, gO, block, sO):
            """One warp stores the staged tile as row block ``block`` of gO (TMA clips past Sq)."""
            tile = cute.local_tile(gO, (self.o_rows, self.head_dim), (block, 0))
            tOs, tOg = cpasync.tma_partition(
                tma_o, 0, cute.make_layout(1), cute.group_modes(sO, 0, 2), cute.group_modes(tile, 0, 2))
            cute.copy(tma_o, tOs, tOg)
            cute.arch.cp_async_bulk_commit_group()
            cute.arch.cp_async_bulk_wait_group(0, read=True)

        @cute.jit
        def _store(self, acc_o, row_sum, m_block, thr_pv, tma_o, gO, sO, warp, bar_id=2):
            """O / row sum, staged in Q's buffer, leaves in one TMA store (which clips rows past
            Sq), issued by the warpgroup's ``warp`` 0. Registers-to-global stores cost 0.5-1.5 us
            more at the seed (v28)."""
            self._normalize_into(acc_o, row_sum, thr_pv, sO)
            cute.arch.fence_view_async_shared()  # the generic-proxy writes, seen by TMA
            cute.arch.barrier(barrier_id=bar_id, number_of_threads=THREADS)  # this warpgroup only
            self._stamp(7)
            if warp == 0:
                self._tma_store(tma_o, gO, m_block, sO)
            self._stamp(8)


SMEM_BYTES = 227 * 1024  # sm_90's shared memory per block


def smem_bytes(head_dim: int, config: Config, elem: int = 2) -> int:
    """Q, every K/V tile of the CTA, the cluster's partials (rank 0 holds split - 1), and
    the padding of an exclusive config."""
    return _unpadded_smem(head_dim, config, elem) + _padding(head_dim, config, elem)


SM_SMEM_BYTES = 228 * 1024  # one SM's shared memory; each resident CTA also takes 1 KB


def _unpadded_smem(head_dim: int, config: Config, elem: int = 2) -> int:
    partials = (config.wgs if config.own_rows else max(config.split * config.wgs - 1, 1)) * THREADS * (
        head_dim // 2 + 4) * 4
    slots = config.tiles
    if config.stages:
        partials, slots = 16, config.stages
    q_rows = BLOCK_M * (config.wgs if config.stages or config.own_rows else 1)
    o_rows = q_rows if config.persistent else 0  # O's own staging tile
    return (q_rows + o_rows + 2 * slots * config.block_n) * head_dim * elem + partials + 1024


def _padding(head_dim: int, config: Config, elem: int = 2) -> int:
    """Bytes that make two CTAs overflow one SM (``Config.exclusive``), else 0."""
    if not config.exclusive:
        return 0
    alone = SM_SMEM_BYTES // 2 + 1024  # past SM / 2 - 1 KB a second CTA cannot fit; 2 KB of margin
    return max(0, alone - _unpadded_smem(head_dim, config, elem))


# setmaxnreg for a ring of 2 or 3 consumer warpgroups and its producer warpgroup (FA3's split
# of the 64K registers: 2 x 128 x 240 + 128 x 24, 3 x 128 x 160 + 128 x 32).
CONSUMER_REGS = {2: 240, 3: 160}
PRODUCER_REGS = {2: 24, 3: 32}

MAX_SPLIT = 2  # four CTAs at the seed made 256 CTAs of 97 KB: two waves, 0.33-0.56 of auto (v28)


def config_for(seq_k: int, head_dim: int) -> Config | None:
    """The widest split (up to MAX_SPLIT CTAs) whose CTA holds all its key tiles at once;
    None when no split fits. The seed (512 keys) gets two CTAs of two 128-key tiles."""
    tiles_total = _ceil_div(seq_k, 128)
    for split in range(min(MAX_SPLIT, tiles_total), 0, -1):
        config = Config(block_n=128, split=split, tiles=_ceil_div(tiles_total, split))
        if smem_bytes(head_dim, config) <= SMEM_BYTES:
            return config
    return None


def _fake(dtype, head_dim: int):
    """A compile-time stand-in for a (batch, heads, S, D) tensor with D contiguous and the
    other strides multiples of 16 bytes (what TMA needs)."""
    from cutlass.cute.runtime import make_fake_tensor
    from cutlass.cute.typing import sym_int

    shape = (sym_int(), sym_int(), sym_int(), head_dim)
    stride = (sym_int(divisibility=8), sym_int(divisibility=8), sym_int(divisibility=8), 1)
    return make_fake_tensor(dtype, shape, stride=stride, assumed_align=16)


def build(dtype_name: str, head_dim: int, config: Config, causal: bool, pdl: bool = True,
          options: str = "--enable-tvm-ffi", trace: bool = False, sms: int = 132):
    """Compiles one binary; sequence lengths, heads, batch and strides are runtime. With no GPU
    it compiles for CUTE_DSL_ARCH (sm_90a), as the offline test does. ``trace`` builds the
    diagnostic variant (``decode_trace``; its LSE tensor must hold ``trace_words`` floats);
    the launcher never does. ``sms``: a persistent config's CTAs (the GPU's SM count)."""
    from cutlass.cute.runtime import make_fake_tensor
    from cutlass.cute.typing import sym_int

    if trace and config.stages:
        raise ValueError(f"build: trace=True stamps the resident-tile kernel only; config has stages={config.stages} "
                         "(a ring). Trace a config with stages=0.")
    dtype = {"float16": cutlass.Float16, "bfloat16": cutlass.BFloat16}[dtype_name]
    op = ClusterSplitForward(dtype, head_dim, config, causal, pdl, trace, sms)
    fakes = [_fake(dtype, head_dim) for _ in range(4)]
    lse = make_fake_tensor(Float32, (sym_int(), sym_int(), sym_int()), stride=(sym_int(), sym_int(), 1), assumed_align=4)
    stream = cute.runtime.make_fake_stream(use_tvm_ffi_env_stream=True)
    return cute.compile(op, *fakes, lse, Float32(1.0), Int32(0), stream, options=options)


TRACE_EVENTS = ("entry", "pdl released", "Q landed", "first K landed", "last softmax", "last P@V",
                "merged or sent", "O staged", "exit")
TRACE_WORDS = 20  # per CTA and warpgroup: (globaltimer % 2^24, clock since entry) per event, SM, block


def trace_words(config: Config, batch_heads: int, seq_q: int) -> int:
    """Floats a traced launch writes: its LSE tensor must hold at least this many (the stamps
    ignore the LSE's shape, so a short one, as at Sq < 64, needs a larger stand-in)."""
    return config.split * batch_heads * _ceil_div(seq_q, BLOCK_M) * config.wgs * TRACE_WORDS


def trace_origin(words: list[float]) -> float:
    """The earliest entry stamp of a traced buffer (raw timer units), to compare buffers."""
    entries = [w for w in words[0::TRACE_WORDS] if w == w]
    return min(entries) if entries else 0.0


def decode_trace(words: list[float], config: Config, origin: float | None = None) -> list[dict]:
    """A traced build's LSE buffer (flattened, as floats; filled with NaN before the launch) to
    one record per CTA and warpgroup: rank, warpgroup, SM, query block and each event's
    %globaltimer in ns from ``origin`` (default: this buffer's first entry), or None where it
    did not stamp (rank 1 does not store O)."""
    wrap = 1 << 24
    slots = [words[i:i + TRACE_WORDS] for i in range(0, len(words) - TRACE_WORDS + 1, TRACE_WORDS)]
    ref = trace_origin(words) if origin is None else origin
    records = []
    for i, s in enumerate(slots):
        if s[0] != s[0]:  # slots past the grid stay as the caller filled them (NaN)
            continue
        events = [None if t != t else ((t - ref) % wrap + wrap // 2) % wrap - wrap // 2 for t in s[0:18:2]]
        place = [int(x) if x == x else None for x in s[18:20]]
        records.append(dict(rank=(i // config.wgs) % config.split, wg=i % config.wgs, sm=place[0], block=place[1],
                            ns=dict(zip(TRACE_EVENTS, events))))
    return records


@functools.cache
def compiled(dtype_name: str, head_dim: int, config: Config, causal: bool, pdl: bool, sms: int = 132):
    """The cached binary, called through TVM-FFI on torch's current stream (CUDA graphs
    capture it)."""
    return build(dtype_name, head_dim, config, causal, pdl, sms=sms if config.persistent else 132)


@functools.cache
def _sm_count(index: int) -> int:
    import torch

    return torch.cuda.get_device_properties(index).multi_processor_count


# ----------------------------------------------------------------------------------
# The family's interface (dispatch.KERNELS, bench's flashcore-cute, tune); auto takes it
# where dispatch._cluster_split_wins says it measured ahead (kernel log v29-v30).
# ----------------------------------------------------------------------------------
SEARCH_SPACE = {"split": (1, 2, 4), "tiles": (1, 2, 3, 4), "exclusive": (False, True), "wgs": (1, 2, 3, 4),
                "interleave": (False, True), "halves": (False, True), "stages": (0, 2, 3, 5),
                "block_n": (32, 64, 96, 128, 176), "loader_warp": (True, False), "lazy": (False, True),
                "turns": (False, True), "persistent": (False, True), "pinned": (False, True),
                "straight": (False, True), "early": (False, True), "own_rows": (False, True),
                "clusterless": (False, True), "keys_first": (False, True)}
HEAD_DIMS = (64, 128)  # the builds the probes checked


def constraints(config: Config, head_dim: int, seq_k: int) -> str | None:
    """Points that cannot run: all of a CTA's key tiles (or its ring) live in shared memory at
    once, and without a ring the cluster's tiles must cover every key."""
    if smem_bytes(head_dim, config) > SMEM_BYTES:
        return f"{smem_bytes(head_dim, config)} bytes of shared memory, over sm_90's {SMEM_BYTES}"
    if config.stages:
        return _ring_problem(config)
    if config.block_n not in (64, 128):
        return f"block_n {config.block_n}: resident tiles (stages 0) are built and checked with 64 or 128 keys"
    if (not config.loader_warp or config.lazy or config.turns or config.persistent or config.pinned or config.straight
            or config.early or config.clusterless):
        return ("loader_warp=False, lazy, turns, persistent, pinned, straight, early and clusterless apply to a "
                "ring (stages > 0) only")
    if config.wgs not in (1, 2, 4) or (config.wgs == 4 and (config.split, config.own_rows) != (1, False)):
        return (f"wgs {config.wgs}: resident tiles are built and checked with one or two warpgroups, or four "
                "in one unsplit CTA without own_rows")
    if config.tiles % config.wgs and not config.own_rows:
        return f"{config.tiles} tiles do not divide among {config.wgs} warpgroups"
    if config.split * config.tiles * config.block_n < seq_k:
        return f"{config.split} x {config.tiles} tiles of {config.block_n} keys do not cover {seq_k} keys"
    if config.own_rows and (not config.halves or config.wgs != 2 or config.interleave):
        return "own_rows needs halves, two warpgroups and no interleave (each warpgroup walks every tile)"
    if config.halves and (config.split != 2 or config.wgs != (2 if config.own_rows else 1) or head_dim != 64):
        # At D=128 the staging tile's rows 32-63 are not one block of memory (two 64-column
        # swizzle blocks of 64 rows each), which the half-tile store assumes.
        return "halves needs split 2, one warpgroup per CTA (two with own_rows) and head dim 64"
    return None


def _ring_problem(config: Config) -> str | None:
    if (config.split, config.halves, config.interleave, config.own_rows, config.keys_first) != (1, False, False, False,
                                                                                                 False):
        return "a ring (stages > 0) takes split 1, no halves, no interleave, no own_rows and no keys_first"
    if config.wgs not in (1, 2, 3):
        return f"a ring takes 1-3 consumer warpgroups, got wgs={config.wgs}"
    if (config.turns or config.persistent) and config.wgs < 2:
        return "turns and persistent need a ring of several warpgroups (wgs 2-3)"
    if config.persistent and not config.pinned:
        # Unpinned, the item loop made LLVM compute every exp twice and ptxas serialize the
        # wgmmas: 0.58-0.69 of Gluon (v32, run 6).
        return "persistent needs pinned=True"
    if config.early and not config.lazy:
        return "early moves the lazy rescale: it needs lazy=True"
    if config.wgs > 1 and not config.loader_warp:
        return "a ring of several warpgroups loads from a producer warpgroup: loader_warp=True"
    if config.tiles != 1 or config.exclusive:
        return "a ring (stages > 0) takes tiles=1 and exclusive=False (neither applies to it)"
    if config.stages < 2:
        return "a ring needs stages >= 2: tile j's QK GEMM and tile j - 1's P @ V hold two slots"
    return None


def heuristic_config(arch: int, head_dim: int, dtype_bytes: int, causal: bool, seq_q: int, seq_k: int,
                     batch_heads: int = 1 << 16) -> Config:
    """Measured at the seed (benchmarks/results/2026-11-25-h100-cute-dispatch/), D=64, 512 keys:

    * split grid within one wave (B=1): config_for's split, two tiles per CTA (4.86 us against
      Gluon's 5.43; 4.67 once the merge became one bulk copy, v30); causal rows on exclusive
      SMs (4.80 against 5.33 unpadded; 4.55 with the bulk copy, 4.27 with each rank storing
      half the rows). Two warpgroups of one tile each: 5.57 / 5.42 (4.80 / 4.58 with the bulk
      copy).
    * split grid past one wave, unsplit within it (B=2): one CTA per query block, two warpgroups
      of two tiles each (5.69 / 5.37 against Gluon's 5.79 / 5.83; split 2 put two CTAs on an
      SM: 6.78 / 6.13). Full rows load the two warpgroups' tiles round-robin (5.50 against
      5.74); causal rows lose with it (5.52 against 5.42; ../2026-11-25-h100-multicast/4-bulk/).
      Causal rows take four warpgroups of one tile each: 5.04 against 5.23 us; full rows do not
      (5.44 against 5.39), nor do 64-key tiles (5.23-5.64; ../2026-11-27-h100-seed-warpgroups/),
      and request all four Ks before the Vs (keys_first): 4.86-4.88 against 5.02-5.04, 1.3-3.3%
      on the rule's other cells with Sq <= Sk (GQA 8/2 0.992); Sq 1024 over 512 keys read 0.981,
      so rows longer than the keys keep K then V per tile, as full rows do (0.994 with two
      warpgroups, 1.006 with four).
    * otherwise config_for's split. Exclusive CTAs past one wave would run in two (B=2 causal:
      8.26 us).
    * where no split holds the keys, a ring (``RINGS``).
    """
    tiles_total = _ceil_div(seq_k, 128)
    config = config_for(seq_k, head_dim)
    if config is None:
        return RINGS[head_dim]
    blocks = _ceil_div(seq_q, BLOCK_M) * batch_heads
    if config.split > 1 and config.split * blocks > SMALL_GRID_CTAS >= blocks and tiles_total >= 2:
        unsplit = Config(split=1, tiles=tiles_total + tiles_total % 2, wgs=2, interleave=True)
        if causal:
            unsplit = Config(split=1, tiles=_ceil_div(tiles_total, 4) * 4, wgs=4, keys_first=seq_q <= seq_k)
        if smem_bytes(head_dim, unsplit) <= SMEM_BYTES:
            return unsplit
    one_wave = config.split * blocks <= SMALL_GRID_CTAS
    exclusive = causal and one_wave
    halves = exclusive and (config.split, config.wgs, head_dim) == (2, 1, 64)
    return dataclasses.replace(config, exclusive=exclusive, halves=halves)


# Rows too long for a cluster's shared memory: the best rings measured. Several consumer
# warpgroups on one K/V ring (FA3's shape). D=128: 128 x 128 tiles with two slots and the
# masked tiles in a loop of their own (0.97 / 0.91 of Gluon at S=8k full / 4k causal, FA4
# 0.98 / 0.95; 0.89 / 0.86 without, 4-rings-straight/; lazy, persistent, turns and 128 x 176
# tiles on top of it read within 1-3%, 5-rings-straight-knobs/). D=64: 192 x 128 with two
# slots, turns and pinned exps (0.957-0.978 of Gluon at S=2k-16k; the 192 x 96 lazy + turns
# ring it replaces read 0.83-0.87 in the same runs, unpinned 192 x 128 spills;
# 10-d64-192x128/), and straight: it lost 2-3% with the old slot arithmetic (4-rings-straight/);
# on the mask-and-shift ring it gains 0.4-1.7% in two runs, never below even (v34,
# 2026-11-26-h100-own-rows/5-ring-knobs/, 6-split-max/). Results in
# benchmarks/results/2026-11-25-h100-cute-warpgroups/, .../2026-11-25-h100-softmax-overlap/ and
# .../2026-11-26-h100-own-rows/. Auto does not pick them.
RINGS = {128: Config(block_n=128, split=1, tiles=1, wgs=2, stages=2, straight=True),
         64: Config(block_n=128, split=1, tiles=1, wgs=3, stages=2, turns=True, pinned=True, straight=True)}


def supports(q, k, v, arch: int) -> str | None:
    """None when this kernel can take the tensors, else why not."""
    if not AVAILABLE:
        return f"needs the flashcore[hopper] extra (CuTe DSL): {MISSING}"
    if q.device.type != "cuda" or arch != 90:
        return f"needs an sm_90 GPU (wgmma, TMA, clusters), got {q.device.type} sm_{arch}"
    if str(q.dtype) not in ("torch.float16", "torch.bfloat16"):
        return f"dtype {q.dtype}: fp16 or bf16 only"
    if q.shape[3] not in HEAD_DIMS:
        return f"head dim {q.shape[3]}: built for {HEAD_DIMS}"
    return tma_layout_problem(q, k, v)


def _checked_config(q, k, causal: bool, config: Config | None) -> Config:
    seq_k, head_dim = k.shape[2], q.shape[3]
    if config is None:
        config = heuristic_config(90, head_dim, q.element_size(), causal, q.shape[2], seq_k, q.shape[0] * q.shape[1])
    problem = constraints(config, head_dim, seq_k)
    if problem:
        raise ValueError(f"cute_fwd: config {config} cannot take {seq_k} keys at head_dim {head_dim}: {problem}; "
                         "pass config=None for the heuristic's, or a config that constraints() accepts")
    return config


def prepare(q, k, v, causal: bool, scale: float, config: Config | None = None, store_lse: bool = True):
    """Everything a launch derives from shapes and flags, done once (a plan's run).

    Returns ``run(q, k, v) -> (out, lse)`` for tensors shaped like these; without
    ``store_lse`` the kernel writes its LSE into a shared scratch and ``lse`` is None."""
    import torch  # kept out of module scope: the offline compile needs no torch

    from .launch import lse_scratch

    config = _checked_config(q, k, causal, config)
    fn = compiled(str(q.dtype).removeprefix("torch."), q.shape[3], config, causal, pdl_on(),
                  _sm_count(q.device.index if q.device.index is not None else 0))
    lse_shape = q.shape[:3]
    # An LSE nobody asked for goes to a scratch that outlives the plan and any graph
    # captured through it (launch.lse_scratch).
    scratch = None if store_lse else lse_scratch(lse_shape.numel(), q.device)[:lse_shape.numel()].view(lse_shape)
    scale_log2, offset = scale * LOG2E, k.shape[2] - q.shape[2]

    def run(q, k, v):
        out = torch.empty_like(q)
        lse = q.new_empty(lse_shape, dtype=torch.float32) if store_lse else scratch
        fn(q, k, v, out, lse, scale_log2, offset)
        return out, (lse if store_lse else None)

    return run


def forward(q, k, v, causal: bool, scale: float, config: Config | None = None, out=None, lse=None):
    """Launch on inputs that ``supports`` accepted (B, H, S, D; D contiguous). Returns
    ``(out, lse)``: the attention and its natural-log LSE ((B, H, Sq) float32)."""
    import torch

    config = _checked_config(q, k, causal, config)
    out = torch.empty_like(q) if out is None else out
    lse = q.new_empty(q.shape[:3], dtype=torch.float32) if lse is None else lse
    fn = compiled(str(q.dtype).removeprefix("torch."), q.shape[3], config, causal, pdl_on(),
                  _sm_count(q.device.index if q.device.index is not None else 0))
    fn(q, k, v, out, lse, scale * LOG2E, k.shape[2] - q.shape[2])
    return out, lse
