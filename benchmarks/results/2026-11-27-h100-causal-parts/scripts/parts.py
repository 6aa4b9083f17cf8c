"""Call 1: the causal 192x64 tiles with three stages (each warpgroup stopping at its own
diagonal; ``causal_three_warpgroups_pay``) where v51 did not reach: head dims whose O runs in
two parts (D=80, D=96: auto keeps 128x128 with turns there) and, in fp16, D=128 at S=2k and on
GQA. Checks and windows as ../../2026-11-27-h100-shipped-peers/scripts/skip.py; ratio: the
first config's (auto's) time over this one's (> 1: faster than auto).
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import dataclasses
import faulthandler
import os
import sys
import time

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import TAG, graphs, inputs, label, passing, run_cells  # noqa: E402

S3 = gf._THREE_WARPGROUPS_CAUSAL_64
S2 = dataclasses.replace(S3, num_stages=2)
WIDE = gf.Config(128, 128, 8, 2, True, persistent=True, packed_sums=2)  # D=128's drawn items
CELLS = {  # (B, Hq, Hkv, S, D)
    "bfloat16": [(4, 16, 16, 4096, 96), (4, 16, 16, 4096, 80), (2, 16, 16, 8192, 96), (8, 16, 16, 2048, 96)],
    "float16": [(8, 16, 16, 2048, 128), (2, 32, 8, 8192, 128), (4, 16, 16, 4096, 96), (4, 16, 16, 4096, 80)],
}[TAG]


def cell(c, log):
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + 3)
    auto = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    configs = [auto] + [x for x in (WIDE if d == 128 else None, S2, S3) if x is not None and x != auto]
    fns = {}
    for cfg in configs:
        print(f"{time.strftime('%X')} {c} {label(cfg)}", flush=True)
        run = gf.prepare(*sets[0], True, d ** -0.5, cfg, store_lse=True)
        name = label(cfg) + (f" pk{cfg.packed_sums}" if cfg.packed_sums else "")
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    flops = 4 * b * hq * s * s * d / 2
    return case, f"auto: {label(auto)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    faulthandler.dump_traceback_later(float(os.environ.get("STACK_AFTER", 1e9)), exit=True)
    run_cells("parts", CELLS, cell)
