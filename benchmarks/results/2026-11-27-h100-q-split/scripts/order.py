"""The causal order with one KV group at a time and a longest-first tail (the tree's
``_tile_coords``) against chunks of ``causal_chunk`` heads throughout with the leftover chunk
first ("chunks", a copy of gluon_fwd with the earlier ``_tile_coords``; its own binaries:
copies.py). Auto's config on each cell, each variant checked against the fp64 reference
(windows.checked), then windows.run_cells' two windows. Ratio: chunks' time over the tree's
(> 1: the tree is faster). MODE=ncu runs one variant four times (VARIANT=tree|chunks), for ncu.
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=800 python <this script> [B,Hq,Hkv,S,D ...]"""
import dataclasses
import os
import sys

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-causal-lead/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from copies import patched_copy  # noqa: E402

CELLS = [(4, 16, 16, 4096, 128), (2, 16, 16, 8192, 128), (1, 16, 16, 16384, 128), (8, 16, 16, 2048, 128),
         (4, 32, 8, 4096, 128), (4, 32, 32, 4096, 64), (2, 32, 32, 8192, 64)]


@gluon.jit
def _tile_coords_chunks(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
                        ZIGZAG: gl.constexpr = False, LEAD: gl.constexpr = False):
    """The order before this change (65f52d2's ``_tile_coords``)."""
    heads_q, group, seq_q, seq_k, n_m, batch_heads, chunk = sched
    if CAUSAL and ZIGZAG:
        tile = gl.where(tile % 2 == 0, tile // 2, n_m * batch_heads - 1 - tile // 2)
    if CAUSAL:
        lead_width = batch_heads % chunk
        lead = lead_width * n_m
        in_lead = tile < lead
        rest = gl.maximum(tile - lead, 0)
        per_chunk = n_m * chunk
        first_bh = gl.where(in_lead, 0, lead_width + rest // per_chunk * chunk)
        width = gl.where(in_lead, lead_width, chunk)
        r = gl.where(in_lead, tile, rest % per_chunk)
        pid_m = n_m - 1 - r // width
        pid_bh = first_bh + r % width
    else:
        pid_m = tile % n_m
        pid_bh = tile // n_m
    off_h = pid_bh % heads_q
    m0 = pid_m * BLOCK_M
    if LEAD:
        m0 -= gf._causal_lead(seq_q, n_m, BLOCK_M)
    n_tiles, _ = gf._kv_bounds(m0, seq_k - seq_q, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    return m0, pid_bh, pid_bh // heads_q, off_h, off_h // group, n_tiles


def chunks():
    return patched_copy("chunks", _tile_coords=_tile_coords_chunks)


def ncu_main():
    b, hq, hkv, s, d = (int(x) for x in os.environ.get("CELL", "4,16,16,4096,128").split(","))
    mod = chunks() if os.environ.get("VARIANT") == "chunks" else gf
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
    sets = inputs(b, hq, hkv, s, d, s + d + 19)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    assert cfg.persistent and not gf.stream_k(cfg, True), cfg
    fns = {}
    for name, mod in (("chunks", OLD), ("one group, tail", gf)):
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(cfg)}; chunks' time / this", 2 * b * hq * s * s * d, sets, *graphs(fns, sets)


if __name__ == "__main__":
    if os.environ.get("MODE") == "ncu":
        ncu_main()
    else:
        from windows import run_cells
        OLD = chunks()
        cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
        run_cells("order", cells, cell)
