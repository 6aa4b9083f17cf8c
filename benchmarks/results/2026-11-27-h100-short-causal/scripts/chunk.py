"""The persistent causal kernels' chunk of heads (``gluon_fwd.causal_chunk``: as many heads as
keep their K/V within half of L2), against a quarter and an eighth of L2 (call 7) and against
all of L2, twice L2 and every head in one chunk (call 8: SHARES=2,1,0.5,0).

Call 6 (order.py) gave stage 1 the same longest-first order over half-L2 chunks and read it
8-18% slower at S=512 and 5% at S=1k than each head's blocks in turn: the CTAs in flight then
read K/V of up to a chunk of heads, and half of L2 held less than the order needs. If so, the
persistent kernels' chunks may be too wide as well. Each cell: auto's config through
``prepare`` with the chunk from half (as shipped), a quarter and an eighth of L2, each checked
against the fp64 reference (fresh independent Q, K, V; O and LSE NaN-poisoned before a rerun
that must give the same bits), in power.py's two windows.
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import os

import torch

from flashcore.kernels import gluon_fwd as gf

from windows import graphs, inputs, label, passing, run_cells

CELLS = [  # (B, Hq, Hkv, S, D), causal
    (4, 16, 16, 4096, 128), (8, 16, 16, 2048, 128), (2, 16, 16, 8192, 128), (4, 32, 8, 4096, 128),
    (4, 32, 32, 4096, 64),
]
# The chunk's K/V within L2 / share (call 7: 2, 4, 8; call 8: 2, 1, 0.5 and 0, every head).
SHARES = tuple(float(x) for x in os.environ.get("SHARES", "2,4,8").split(","))
REAL = gf.causal_chunk


def chunk_for(share, s, hd, el, group, l2):
    return 1 << 20 if share == 0 else REAL(s, hd, el, group, int(l2 * 2 / share))


def prepared(sets, d, cfg, share):
    gf.causal_chunk = lambda s, hd, el, group, l2: chunk_for(share, s, hd, el, group, l2)
    try:
        return gf.prepare(*sets[0], True, d ** -0.5, cfg, store_lse=True)
    finally:
        gf.causal_chunk = REAL


def cell(c, log):
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    fns = {}
    for share in SHARES:
        chunk = min(b * hq, chunk_for(share, s, d, 2, hq // hkv, torch.cuda.get_device_properties(0).L2_cache_size))
        name = f"L2/{share:g} ({chunk} heads)" if share else f"all ({chunk} heads)"
        fns[name] = passing(prepared(sets, d, cfg, share), sets, hq // hkv, True, log,
                            f"B{b} H{hq}/{hkv} S{s} D{d} {name} {label(cfg)}")
    header = f"{label(cfg)}; half-L2 time / this, > 1: this is faster"
    return f"B{b} H{hq}/{hkv} S{s} D{d} causal", header, 4 * b * hq * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("chunk", CELLS, cell)
