"""With the late draw (01b674d), does one KV group at a time still lose on short rows? v55's
call 10 read it 0.876 at D=64 B=8 H=32 S=2k causal and shipped chunks of ``causal_chunk``
heads before the tail wherever the tail holds more than ONE_GROUP_TAIL KV heads. "one group":
a copy of gluon_fwd whose ``_tile_coords`` draws one KV group at a time on every causal launch
(b309aa5's rule; copies.py), against the tree. Auto's config on each cell, each variant checked
against the fp64 reference (windows.checked), then windows.run_cells' two windows. Ratio: tree's
time over one group's (> 1: one group is faster). MODE=ncu runs one variant four times
(VARIANT=tree|group), for ncu.
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

CELLS = [(8, 32, 32, 2048, 64), (4, 32, 32, 4096, 64), (8, 16, 16, 2048, 128)]


@gluon.jit
def _tile_coords_group(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
                       ZIGZAG: gl.constexpr = False, LEAD: gl.constexpr = False):
    """The tree's ``_tile_coords`` with one KV group at a time before the tail everywhere."""
    heads_q, group, seq_q, seq_k, n_m, batch_heads, chunk = sched
    if CAUSAL and ZIGZAG:
        tile = gl.where(tile % 2 == 0, tile // 2, n_m * batch_heads - 1 - tile // 2)
    if CAUSAL:
        w = group
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
        m0 -= gf._causal_lead(seq_q, n_m, BLOCK_M)
    n_tiles, _ = gf._kv_bounds(m0, seq_k - seq_q, seq_k, BLOCK_M, BLOCK_N, CAUSAL)
    return m0, pid_bh, pid_bh // heads_q, off_h, off_h // group, n_tiles


def one_group():
    return patched_copy("group", _tile_coords=_tile_coords_group)


def ncu_main():
    b, hq, hkv, s, d = (int(x) for x in os.environ.get("CELL", "8,32,32,2048,64").split(","))
    mod = one_group() if os.environ.get("VARIANT") == "group" else gf
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
    sets = inputs(b, hq, hkv, s, d, s + d + 29)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    assert cfg.persistent and not gf.stream_k(cfg, True), cfg
    fns = {}
    for name, mod in (("tree", gf), ("one group", GROUP)):
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(cfg)}; tree's time / this", 2 * b * hq * s * s * d, sets, *graphs(fns, sets)


if __name__ == "__main__":
    if os.environ.get("MODE") == "ncu":
        ncu_main()
    else:
        from windows import run_cells
        GROUP = one_group()
        cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
        run_cells("group", cells, cell)
