"""When the producer draws the next causal item. The tree's producer draws item L + 1 (an
atomic on the counter) and posts it as soon as Q of item L is on its way (v38), a whole item
before the CTA starts it. "late": the same producer, drawing and posting L + 1 only once the
last K/V load of item L is issued, STAGES key tiles before the consumers reach the end of L
(a copy of gluon_fwd with its own binaries: copies.py). The question is DRAM bytes: a draw a
whole item ahead spreads the start times of one head's items by the lengths of the items the
drawing CTAs are still on, so a head's K/V stays live longer and longest-first holds less.
Auto's config on each cell, each variant checked against the fp64 reference
(windows.checked), then windows.run_cells' two windows. Ratio: tree's time over late's (> 1:
late is faster). MODE=ncu runs one variant four times (VARIANT=tree|late), for ncu.
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

CELLS = [(4, 16, 16, 4096, 128), (2, 16, 16, 8192, 128), (8, 32, 32, 2048, 64), (2, 32, 32, 8192, 64),
         (4, 32, 8, 4096, 128)]


@gluon.jit
def _ws_producer_late(loads, sched, WG_M: gl.constexpr, NUM_WG: gl.constexpr, BLOCK_M: gl.constexpr,
                      BLOCK_N: gl.constexpr, STAGES: gl.constexpr, CAUSAL: gl.constexpr, DYNAMIC: gl.constexpr,
                      STREAM_K: gl.constexpr):
    """The tree's ``_ws_producer`` with the dynamic draw after the item's K/V loads."""
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
        for t in range(n_tiles):
            gf._load_kv(kv, first + t, (ring + t) % STAGES, (((ring + t) // STAGES) & 1) ^ 1, off_b, off_hkv,
                        BLOCK_N)
        if DYNAMIC:
            nxt = gf._next_item(tile, counter, total, DYNAMIC)
            gf._post_item(nxt, posted, posted_bar, lap + 1)
        ring += n_tiles
        lap += 1
        if STREAM_K:
            step += 1
            tile, first, last = gf._piece(step, plan, total, n_kv, CAUSAL)
        elif DYNAMIC:
            tile = nxt
        else:
            tile = gf._next_item(tile, counter, total, DYNAMIC)


def late():
    return patched_copy("late", _ws_producer=_ws_producer_late)


def ncu_main():
    b, hq, hkv, s, d = (int(x) for x in os.environ.get("CELL", "4,16,16,4096,128").split(","))
    mod = late() if os.environ.get("VARIANT") == "late" else gf
    dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
    g = torch.Generator(device="cuda").manual_seed(3)
    q = torch.randn(b, hq, s, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    run = mod.prepare(q, k, v, True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)))
    for _ in range(4):
        run(q, k, v)
    torch.cuda.synchronize()
    print(os.environ.get("VARIANT", "tree"), cfg)


def cell(c, log):
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + 23)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    assert cfg.persistent and not gf.stream_k(cfg, True), cfg
    fns = {}
    for name, mod in (("tree", gf), ("late draw", LATE)):
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(cfg)}; tree's time / this", 2 * b * hq * s * s * d, sets, *graphs(fns, sets)


if __name__ == "__main__":
    if os.environ.get("MODE") == "ncu":
        ncu_main()
    else:
        from windows import run_cells
        LATE = late()
        cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
        run_cells("draw", cells, cell)
