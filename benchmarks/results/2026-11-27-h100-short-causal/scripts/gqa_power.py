"""Does the 192x64 rule (``gluon_fwd.three_warpgroups_read_less``) hold on GQA's full rows?

Call 1's bench (1/gqa-*.log, ~110 ms turns) read auto (192x64, three warpgroups) over the
config it replaced (128x128, two warpgroups, stream-K tail) at 1.026 / 1.048 (bf16 / fp16) at
S=2k but 0.962 / 0.980 at S=8k and 0.984 / 0.991 at S=16k, where the standard preset's cells
had read 1.011-1.062 (2026-11-27-h100-power/ run 15). Here each cell runs power.py's two
windows (SHORT: 30 ms paired rounds; LONG: each alone for 800 ms, the second half timed) with
the clock and power, on GQA (Hq=32, Hkv=8) and, as a control, the standard preset's MHA cell.
Every provider is checked first against the fp64 reference on fresh independent Q, K, V (O
and LSE NaN-poisoned before a rerun that must give the same bits), one KV group of heads.
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import flashcore
from flashcore.kernels import gluon_fwd as gf

from windows import graphs, inputs, label, passing, run_cells

W2_SK = gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True)  # auto's before the rule
CELLS = [  # (B, Hq, Hkv, S), D=128 full
    (2, 32, 8, 8192), (1, 32, 8, 16384), (4, 32, 8, 4096), (2, 16, 16, 8192),
]


def cell(c, log):
    b, hq, hkv, s = c
    sets = inputs(b, hq, hkv, s, 128, s + hq)
    auto = gf.heuristic_config(90, 128, 2, False, s, s, b * hq)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v)}
    for cfg in (auto, W2_SK):
        run = gf.prepare(*sets[0], False, 128 ** -0.5, cfg, store_lse=True)
        name = label(cfg) if cfg != auto else "auto via prepare"
        fns[name] = passing(run, sets, hq // hkv, False, log, f"B{b} H{hq}/{hkv} S{s} {label(cfg)}")
    case = f"B{b} H{hq}/{hkv} S{s} D128 full"
    return case, f"auto: {label(auto)}; auto's time / this", 4 * b * hq * s * s * 128, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("gqa-power", CELLS, cell)
