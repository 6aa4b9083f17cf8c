"""What v52's turn fix costs, measured on two binaries this time: v52's call 6 and v53's call 5
patched ``_pass_turn`` into the imported module, which left the tree's binary in place
(copies.py). "old" is a copy of gluon_fwd whose turns warp 0 passes alone, without the
partition barrier (v52's ``_pass_turn_unsynced``, from ../../2026-11-27-h100-causal-parts/
scripts/turns.py; it can hang in fp16, so bf16 only), "new" the tree's. Auto's config, each
checked against the fp64 reference, then windows.run_cells' two windows. Ratio: old's time
over new's (< 1: the fix costs).
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=600 python <this script>"""
import dataclasses
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
from copies import gf, patched_copy  # noqa: E402
from windows import graphs, inputs, label, passing, run_cells  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "old_turns", os.path.join(HERE, "../../2026-11-27-h100-causal-parts/scripts/turns.py"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-causal-parts/scripts"))
_old = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(_old)
OLD = patched_copy("unsynced_turns", _pass_turn=_old._pass_turn_unsynced)

CELLS = [(2, 16, 16, 8192, 128, False), (1, 16, 16, 16384, 128, False), (4, 16, 16, 4096, 128, True),
         (2, 32, 32, 8192, 64, True)]


def cell(c, log):
    b, hq, hkv, s, d, causal = c
    sets = inputs(b, hq, hkv, s, d, s + d + 11)
    cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * hq)
    fns = {}
    for name, mod in (("old turns", OLD), ("new turns", gf)):
        run = mod.prepare(*sets[0], causal, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, 1, causal, log, f"B{b} H{hq} S{s} D{d} causal={causal} {name}")
    case = f"B{b} H{hq} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"{label(cfg)}; old's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("turncost", CELLS, cell)
