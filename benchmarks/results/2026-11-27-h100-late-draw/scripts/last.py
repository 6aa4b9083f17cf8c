"""Where the producer draws the next causal item: v38's early draw (a whole item ahead; "early"),
the tree's (after the item's last K/V load, 01b674d) and one key tile earlier ("before the last
load"), each a copy of gluon_fwd with its own binaries (copies.py) but the tree. Call 7 read
the tree 1-2% behind the early draw on some 128x128 builds (two stages: the draw's atomic and
the next item's coordinates have under two key tiles to hide in). Auto's heuristic config on
each cell, each variant checked against the fp64 reference (windows.checked), then
windows.run_cells' two windows. Ratio: early's time over each (> 1: faster than early).
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=800 python <this script> [B,Hq,Hkv,S,D ...]"""
import dataclasses
import os
import sys

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-causal-lead/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from copies import patched_copy  # noqa: E402

CELLS = [(16, 16, 16, 1024, 96), (4, 16, 16, 4096, 96), (2, 8, 8, 3000, 80), (16, 16, 16, 1024, 128),
         (4, 16, 16, 4096, 128)]


@gluon.jit
def _ws_producer_early(loads, sched, WG_M: gl.constexpr, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr,
                      BLOCK_N: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr, DYNAMIC: gl.constexpr,
                      STREAM_K: gl.constexpr):
    """``_ws_producer`` as before 01b674d (v38): the dynamic draw before the item's K/V loads."""
    (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bars, q_empty, k_ready, v_ready, k_empty, v_empty,
     posted, posted_bar, counter, PLAN) = loads
    gf._grid_wait()
    if STREAM_K:
        sched = gf._own_n_m(sched, BLOCK_M)
    kv = (desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty)
    total = sched[4] * sched[5]
    ring = 0
    lap = 0
    tile = gl.program_id(0)
    first = 0
    if STREAM_K:
        step = 0
        n_kv = gl.maximum(gl.cdiv(gf._opaque(sched[3]), BLOCK_N), 1)
        plan = gf._plan_rows(PLAN) if CAUSAL else gf._stream_k_plan(total, n_kv)
        tile, first, last = gf._piece(step, plan, total, n_kv, CAUSAL)
    if DYNAMIC:
        gf._post_item(tile, posted, posted_bar, 0)
    LEAD: gl.constexpr = gf._leads(CAUSAL, BLOCK_M, desc_q.block_type.shape[3])
    while tile < total:
        m0, _, off_b, off_h, off_hkv, n_tiles = gf._tile_coords(tile, sched, BLOCK_M, BLOCK_N, CAUSAL, STREAM_K,
                                                                LEAD)
        if STREAM_K:
            _, n_tiles = gf._piece_tiles(first, last, n_tiles, CAUSAL)
        for w in gl.static_range(NUM_WG):
            mbarrier.wait(q_empty.index(w), (lap & 1) ^ 1)
            mbarrier.expect(q_bars.index(w), desc_q.block_type.nbytes)
            row = m0 + w * WG_M
            if LEAD:
                row = gl.maximum(row, 0)
            tma.async_copy_global_to_shared(desc_q, [off_b, off_h, row, 0], q_bars.index(w), q_smem.index(w))
        if DYNAMIC:
            nxt = gf._next_item(tile, counter, total, DYNAMIC)
            gf._post_item(nxt, posted, posted_bar, lap + 1)
        for t in range(n_tiles):
            gf._load_kv(kv, first + t, (ring + t) % STAGES, (((ring + t) // STAGES) & 1) ^ 1, off_b, off_hkv,
                        BLOCK_N)
        ring += n_tiles
        lap += 1
        if STREAM_K:
            step += 1
            tile, first, last = gf._piece(step, plan, total, n_kv, CAUSAL)
        elif DYNAMIC:
            tile = nxt
        else:
            tile = gf._next_item(tile, counter, total, DYNAMIC)


@gluon.jit
def _ws_producer_before_last(loads, sched, WG_M: gl.constexpr, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr,
                      BLOCK_N: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr, DYNAMIC: gl.constexpr,
                      STREAM_K: gl.constexpr):
    """The tree's ``_ws_producer`` with the dynamic draw before the item's last K/V load (one key
    tile earlier than the tree's; a one-tile item draws before its only load, as v38 did)."""
    (desc_q, desc_k, desc_v, q_smem, k_smem, v_smem, q_bars, q_empty, k_ready, v_ready, k_empty, v_empty,
     posted, posted_bar, counter, PLAN) = loads
    gf._grid_wait()
    if STREAM_K:
        sched = gf._own_n_m(sched, BLOCK_M)
    kv = (desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty)
    total = sched[4] * sched[5]
    ring = 0
    lap = 0
    tile = gl.program_id(0)
    first = 0
    if STREAM_K:
        step = 0
        n_kv = gl.maximum(gl.cdiv(gf._opaque(sched[3]), BLOCK_N), 1)
        plan = gf._plan_rows(PLAN) if CAUSAL else gf._stream_k_plan(total, n_kv)
        tile, first, last = gf._piece(step, plan, total, n_kv, CAUSAL)
    if DYNAMIC:
        gf._post_item(tile, posted, posted_bar, 0)
    LEAD: gl.constexpr = gf._leads(CAUSAL, BLOCK_M, desc_q.block_type.shape[3])
    while tile < total:
        m0, _, off_b, off_h, off_hkv, n_tiles = gf._tile_coords(tile, sched, BLOCK_M, BLOCK_N, CAUSAL, STREAM_K,
                                                                LEAD)
        if STREAM_K:
            _, n_tiles = gf._piece_tiles(first, last, n_tiles, CAUSAL)
        for w in gl.static_range(NUM_WG):
            mbarrier.wait(q_empty.index(w), (lap & 1) ^ 1)
            mbarrier.expect(q_bars.index(w), desc_q.block_type.nbytes)
            row = m0 + w * WG_M
            if LEAD:
                row = gl.maximum(row, 0)
            tma.async_copy_global_to_shared(desc_q, [off_b, off_h, row, 0], q_bars.index(w), q_smem.index(w))
        if DYNAMIC:
            for t in range(n_tiles - 1):
                gf._load_kv(kv, first + t, (ring + t) % STAGES, (((ring + t) // STAGES) & 1) ^ 1, off_b, off_hkv,
                            BLOCK_N)
            nxt = gf._next_item(tile, counter, total, DYNAMIC)
            gf._post_item(nxt, posted, posted_bar, lap + 1)
            t = n_tiles - 1  # >= 0: _kv_bounds visits at least one tile
            gf._load_kv(kv, first + t, (ring + t) % STAGES, (((ring + t) // STAGES) & 1) ^ 1, off_b, off_hkv,
                        BLOCK_N)
        else:
            for t in range(n_tiles):
                gf._load_kv(kv, first + t, (ring + t) % STAGES, (((ring + t) // STAGES) & 1) ^ 1, off_b, off_hkv,
                            BLOCK_N)
        ring += n_tiles
        lap += 1
        if STREAM_K:
            step += 1
            tile, first, last = gf._piece(step, plan, total, n_kv, CAUSAL)
        elif DYNAMIC:
            tile = nxt
        else:
            tile = gf._next_item(tile, counter, total, DYNAMIC)



def early():
    return patched_copy("early", _ws_producer=_ws_producer_early)


def before_last():
    return patched_copy("before_last", _ws_producer=_ws_producer_before_last)


def cell(c, log):
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + 37)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    assert cfg.persistent and not gf.stream_k(cfg, True), cfg
    fns = {}
    for name, mod in (("early draw", EARLY), ("tree", gf), ("before the last load", LAST)):
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(cfg)}; early's time / this", 2 * b * hq * s * s * d, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    EARLY, LAST = early(), before_last()
    cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
    run_cells("last", cells, cell)
