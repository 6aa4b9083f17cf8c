"""Call 2: variant 2 of the packed row sums (inside the sum check) on the 192x64 build, where
call 1 read it 1.014-1.019x alone at D=128 B=2 S=8k full: the other cells of auto's 192x64
rule (S=4k, S=16k, GQA, D=96), and D=128 causal S=4k on 192x64 tiles (v48 read them 0.990 of
auto's 128x128 there) with and without it. Checks and windows as packed.py; ratio: auto's
time over this one's (> 1: faster than auto).
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import graphs, inputs, label, passing, run_cells  # noqa: E402

C64 = gf.Config(192, 64, 12, 2, True, True, persistent=True)
CELLS = [  # (B, Hq, Hkv, S, D, causal, candidates)
    (4, 16, 16, 4096, 128, False, "pk2"),
    (1, 16, 16, 16384, 128, False, "pk2"),
    (2, 32, 8, 8192, 128, False, "pk2"),
    (4, 16, 16, 4096, 96, False, "pk2"),
    (4, 16, 16, 4096, 128, True, "c64"),
]


def candidates(auto, kind):
    if kind == "pk2":
        return [dataclasses.replace(auto, packed_sums=2)]
    return [C64, dataclasses.replace(C64, packed_sums=2), dataclasses.replace(C64, num_stages=3, packed_sums=2)]


def cell(c, log):
    b, hq, hkv, s, d, causal, kind = c
    sets = inputs(b, hq, hkv, s, d, s + d)
    auto = gf.heuristic_config(90, d, 2, causal, s, s, b * hq)
    fns = {}
    for cfg in [auto] + candidates(auto, kind):
        run = gf.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=True)
        name = label(cfg) + (f" pk{cfg.packed_sums}" if cfg.packed_sums else "")
        fns[name] = passing(run, sets, hq // hkv, causal, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"auto: {label(auto)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("confirm", CELLS, cell)
