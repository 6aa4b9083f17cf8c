"""Ping-pong turns on the D=128 build's persistent causal rows from 2k keys (auto: 128x128,
two consumer warpgroups, no turns; v46 read turns level in 30 ms rounds). v48's run 2 read
turns 1.014 / 1.001x alone at S=4k (bf16 / fp16), and call 5's tuner confirmed 1.007x.
Here each cell runs auto's config and the same with turns through ``prepare``, each checked
against the fp64 reference (chunk.py's check: fresh independent Q, K, V, O and LSE
NaN-poisoned before a rerun that must give the same bits; one KV group under GQA), in
power.py's two windows. Ratio: auto's time over this one's (> 1: turns faster).
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import dataclasses

from flashcore.kernels import gluon_fwd as gf

from windows import graphs, inputs, label, passing, run_cells

CELLS = [  # (B, Hq, Hkv, S), D=128 causal
    (8, 16, 16, 2048), (4, 16, 16, 4096), (2, 16, 16, 8192), (1, 16, 16, 16384), (4, 32, 8, 4096),
]


def cell(c, log):
    b, hq, hkv, s = c
    sets = inputs(b, hq, hkv, s, 128, s + hkv)
    auto = gf.heuristic_config(90, 128, 2, True, s, s, b * hq)
    fns = {}
    for cfg in (auto, dataclasses.replace(auto, pingpong=True)):
        run = gf.prepare(*sets[0], True, 128 ** -0.5, cfg, store_lse=True)
        fns[label(cfg)] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} {label(cfg)}")
    case = f"B{b} H{hq}/{hkv} S{s} D128 causal"
    return case, f"auto: {label(auto)}; auto's time / this", 4 * b * hq * s * s * 128 / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("turns", CELLS, cell)
