"""Calls 1 and 6. Row sums from the packed P (gluon_fwd ``Config.packed_sums``; kernel log v50) against auto's
configs, which sum the fp32 P. Variant 1 sums in an asm of its own, variant 2 inside the sum
check; each only where it compiles spill-free (offline, sm_90, both dtypes). Each config is
checked first (windows.checked: fresh independent Q, K, V against the fp64 reference, O and
LSE NaN-poisoned before a rerun that must give the same bits), then timed in power.py's two
windows. Ratio: auto's time over this one's (> 1: the packed sums are faster).
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import graphs, inputs, label, passing, run_cells  # noqa: E402

CELLS = [  # (B, H, S, D, causal, packed variants without spills)
    (4, 16, 4096, 128, True, (1,)),
    (2, 16, 8192, 128, True, (1,)),
    (2, 16, 8192, 128, False, (1, 2)),
    (2, 32, 8192, 64, False, (1, 2)),
    (32, 16, 512, 128, True, (1, 2)),
]
# Call 6 (PACKED_CELLS=short; CELLS is an older script's): the short rows' configs, where call 1 did not look (stage 1's 64x128 at
# D=64 takes 202 registers with variant 1, so only variant 2 there).
SHORT = [
    (16, 16, 1024, 128, False, (1, 2)),
    (32, 16, 512, 128, False, (1, 2)),
    (16, 16, 1024, 128, True, (1,)),
    (16, 32, 1024, 64, False, (2,)),
    (32, 32, 512, 64, False, (2,)),
]
# Call 9 (PACKED_CELLS=causal): variant 2 on 128-key tiles once their sums add as a chain (a tree
# spilled 16 B on D=128's 128x128 tiles; the chain does not, offline).
CAUSAL = [
    (4, 16, 4096, 128, True, (2,)),
    (2, 16, 8192, 128, True, (2,)),
    (1, 16, 16384, 128, True, (2,)),
    (16, 16, 1024, 128, True, (2,)),
    (16, 16, 1024, 128, False, (2,)),
]


def cell(c, log):
    b, h, s, d, causal, variants = c
    sets = inputs(b, h, h, s, d, s + d)
    auto = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
    fns = {}
    for cfg in [auto] + [dataclasses.replace(auto, packed_sums=n) for n in variants]:
        run = gf.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=True)
        name = label(cfg) + (f" pk{cfg.packed_sums}" if cfg.packed_sums else "")
        fns[name] = passing(run, sets, 1, causal, log, f"B{b} H{h} S{s} D{d} {name}")
    case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * h * s * s * d / (2 if causal else 1)
    return case, f"auto: {label(auto)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    which = os.environ.get("PACKED_CELLS", "")
    run_cells(f"packed-{which}" if which else "packed", {"short": SHORT, "causal": CAUSAL}.get(which, CELLS), cell)
