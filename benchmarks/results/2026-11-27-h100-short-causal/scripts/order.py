"""Stage 1's causal launch order: the persistent kernels' longest-first order over chunks of
heads whose K/V fit in half of L2 (``_tile_coords``), against the order before (each head's
query blocks in turn, longest first within the head; the same code with ``chunk`` = 1).

D=128 S=512 causal (B=32 H=16, 4096 CTAs of 64 rows, 4 a SM) reads 0.97-0.995 of cuDNN, and
call 1 found no tile faster. In the order before, the last heads' longest blocks start within
the last wave and run alone at the end; a model of 528 slots (slots_model.py, kernel log v49)
put the ordered tail at 5-7% of the time. Each cell: the new order, the old
(both through ``gluon_fwd.prepare`` with auto's config, checked against the fp64 reference on
fresh independent Q, K, V with O and LSE NaN-poisoned before a rerun that must give the same
bits), auto through the API and cuDNN, in power.py's two windows.
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import flashcore
from flashcore.kernels import gluon_fwd as gf

from windows import base, graphs, inputs, label, passing, run_cells

CELLS = [  # (B, H, S, D), causal: the stage-1 causal cells of the standard and dims presets
    (32, 16, 512, 128), (32, 32, 512, 64), (16, 32, 1024, 64), (8, 64, 2048, 32), (4, 64, 4096, 32),
]


def prepared(sets, d, cfg, chunk_one):
    real = gf.causal_chunk
    if chunk_one:
        gf.causal_chunk = lambda *a: 1
    try:
        return gf.prepare(*sets[0], True, d ** -0.5, cfg, store_lse=True)
    finally:
        gf.causal_chunk = real


def cell(c, log):
    b, h, s, d = c
    sets = inputs(b, h, h, s, d, s + d)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * h)
    fns = {}
    for name, chunk_one in (("new order", False), ("old order", True)):
        fns[name] = passing(prepared(sets, d, cfg, chunk_one), sets, 1, True, log,
                            f"B{b} H{h} S{s} D{d} {name} {label(cfg)}")
    fns["auto"] = lambda q, k, v: flashcore.attention(q, k, v, causal=True)
    fns.update(base.peers(sets, True))
    header = f"{label(cfg)}; this / new order, > 1: new is faster"
    return f"B{b} H{h} S{s} D{d} causal", header, 4 * b * h * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("order", CELLS, cell, this_over_first=True)
