"""The causal order's DRAM refetch (call 4: one D=128 S=4k causal launch reads 328 MB from DRAM
with the shipped chunk of 12 heads, against the 201 MB of Q, K and V; chunks of 2 read 273 MB
but ran 8% longer at ncu's clocks, since the last chunk's longest items then start near the end).

"tail c" is a copy of gluon_fwd whose ``_tile_coords`` takes the heads in chunks of c
(longest first within each) and only the last TAIL heads as one wide chunk, longest first, so
the last waves still end on short items. Its own binaries (copies.py). Each variant is checked
against the fp64 reference (windows.checked), then windows.run_cells' two windows. Ratio: the
tree's time over the variant's. MODE=ncu instead runs one variant four times (under ncu).
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=800 python <this script>"""
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

TAIL = gl.constexpr(int(os.environ.get("TAIL", "12")))
CELLS = [(4, 16, 16, 4096, 128), (8, 16, 16, 2048, 128), (2, 16, 16, 8192, 128)]


@gluon.jit
def _tile_coords_tail(tile, sched, BLOCK_M: gl.constexpr, BLOCK_N: gl.constexpr, CAUSAL: gl.constexpr,
                      ZIGZAG: gl.constexpr = False, LEAD: gl.constexpr = False):
    heads_q, group, seq_q, seq_k, n_m, batch_heads, chunk = sched
    if CAUSAL:
        tail_w = gl.minimum(batch_heads, TAIL)
        body = (batch_heads - tail_w) * n_m
        in_tail = tile >= body
        per_chunk = n_m * chunk
        first_bh = gl.where(in_tail, batch_heads - tail_w, tile // per_chunk * chunk)
        width = gl.where(in_tail, tail_w, chunk)
        r = gl.where(in_tail, tile - body, tile % per_chunk)
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


def variant(c):
    """The copy with chunks of c heads before the tail (c must divide the heads before it)."""
    return patched_copy(f"tail{c}", _tile_coords=_tile_coords_tail, causal_chunk=lambda *a, c=c: c)


def ncu_main():
    b, h, s, d = (int(x) for x in os.environ.get("CELL", "4,16,4096,128").split(","))
    c = int(os.environ.get("CHUNK", "0"))
    mod = variant(c) if c else gf
    dtype = torch.bfloat16 if os.environ.get("DTYPE", "bf16") == "bf16" else torch.float16
    g = torch.Generator(device="cuda").manual_seed(3)
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=dtype, generator=g) for _ in range(3))
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * h)
    run = mod.prepare(q, k, v, True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)))
    for _ in range(4):
        run(q, k, v)
    torch.cuda.synchronize()
    print("tail chunk", c or "tree", cfg)


def cell(cl, log):
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d = cl
    sets = inputs(b, hq, hkv, s, d, s + d + 17)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    fns = {}
    for name, mod in [("tree", gf)] + [(f"tail, chunks of {c}", VARIANTS[c]) for c in CHUNKS]:
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(cfg)}; tree's time / this", 2 * b * hq * s * s * d, sets, *graphs(fns, sets)


if __name__ == "__main__":
    if os.environ.get("MODE") == "ncu":
        ncu_main()
    else:
        from windows import run_cells
        CHUNKS = [int(x) for x in os.environ.get("CHUNKS", "2,4").split(",")]
        VARIANTS = {c: variant(c) for c in CHUNKS}
        cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
        run_cells("tail", cells, cell)
