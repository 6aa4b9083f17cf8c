"""Call 3: D=128 causal rows on three warpgroups' 192x64 tiles, now with each warpgroup leaving
out the key tiles past its own rows (``_skips_unseen`` on the D=128 build as on D=64's): a
warpgroup of 64 rows then ends at its own 64x64 diagonal tile, where 128x128 tiles leave the
lower warpgroup half a tile of masked work and 192x64 tiles without the skip leave the lower two
warpgroups two and one whole masked tiles. v50 read 192x64 (pk2, without the skip) level with
auto's 128x128 at S=4k. Checks and windows as ../../2026-11-27-h100-packed-sums/scripts/confirm.py;
ratio: auto's time over this one's (> 1: faster than auto).
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import graphs, inputs, label, passing, run_cells  # noqa: E402

C64 = gf.Config(192, 64, 12, 2, True, True, persistent=True, packed_sums=2)
CELLS = [  # (B, Hq, Hkv, S, D)
    (4, 16, 16, 4096, 128),
    (2, 16, 16, 8192, 128),
    (1, 16, 16, 16384, 128),
    (8, 16, 16, 2048, 128),
    (2, 32, 8, 8192, 128),
]


def cell(c, log):
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + 1)
    auto = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    fns = {}
    for cfg in (auto, C64, dataclasses.replace(C64, num_stages=3)):
        run = gf.prepare(*sets[0], True, d ** -0.5, cfg, store_lse=True)
        name = label(cfg) + (f" pk{cfg.packed_sums}" if cfg.packed_sums else "")
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    flops = 4 * b * hq * s * s * d / 2
    return case, f"auto: {label(auto)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("skip", CELLS, cell)
