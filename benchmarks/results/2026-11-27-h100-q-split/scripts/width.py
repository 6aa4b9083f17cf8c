"""Call 10: the tree's causal order lost at D=64 B=8 H=32 S=2k causal in both benches (calls 8-9:
356 / 347 TF against 406 / 399 at d4dc327). Variants of the body's width, the heads drawn
longest first together before the tail: "chunks" (65f52d2's order, order.py), the tree (one
KV group), "w = chunk / 4" and "w = chunk" (whole KV groups, the tail still last). Copies of
gluon_fwd with their own binaries (copies.py). Checked against the fp64 reference, then
windows.run_cells' two windows; ratio: chunks' time over each. MODE=ncu VARIANT=<name> runs
one variant four times, for ncu.
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
sys.path.insert(0, HERE)  # this folder's order.py, not short-causal's
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from copies import patched_copy  # noqa: E402
from order import chunks  # noqa: E402

CELLS = [(8, 32, 32, 2048, 64), (4, 16, 16, 4096, 128)]


@gluon.jit
def _coords_w(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
              ZIGZAG: gl.constexpr, LEAD: gl.constexpr, F: gl.constexpr):
    heads_q, group, seq_q, seq_k, n_m, batch_heads, chunk = sched
    if CAUSAL and ZIGZAG:
        tile = gl.where(tile % 2 == 0, tile // 2, n_m * batch_heads - 1 - tile // 2)
    if CAUSAL:
        w = gl.maximum(chunk // (F * group), 1) * group
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


@gluon.jit
def _coords_w1(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
               ZIGZAG: gl.constexpr = False, LEAD: gl.constexpr = False):
    return _coords_w(tile, sched, BLOCK_M, BLOCK_N, CAUSAL, ZIGZAG, LEAD, 1)


@gluon.jit
def _coords_w4(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
               ZIGZAG: gl.constexpr = False, LEAD: gl.constexpr = False):
    return _coords_w(tile, sched, BLOCK_M, BLOCK_N, CAUSAL, ZIGZAG, LEAD, 4)


def variants():
    return {"chunks": chunks(), "tree (w = group)": gf,
            "w = chunk / 4": patched_copy("w4", _tile_coords=_coords_w4),
            "w = chunk": patched_copy("w1", _tile_coords=_coords_w1)}


def ncu_main():
    b, hq, hkv, s, d = (int(x) for x in os.environ.get("CELL", "8,32,32,2048,64").split(","))
    mod = variants()[os.environ.get("VARIANT", "tree (w = group)")]
    dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
    g = torch.Generator(device="cuda").manual_seed(3)
    q = torch.randn(b, hq, s, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, hkv, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    run = mod.prepare(q, k, v, True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)))
    for _ in range(4):
        run(q, k, v)
    torch.cuda.synchronize()
    print(os.environ.get("VARIANT"), cfg)


def cell(c, log):
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + 23)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    fns = {}
    for name, mod in VARIANTS.items():
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(cfg)}; chunks' time / this", 2 * b * hq * s * s * d, sets, *graphs(fns, sets)


if __name__ == "__main__":
    if os.environ.get("MODE") == "ncu":
        ncu_main()
    else:
        from windows import run_cells
        VARIANTS = variants()
        cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
        run_cells("width", cells, cell)
