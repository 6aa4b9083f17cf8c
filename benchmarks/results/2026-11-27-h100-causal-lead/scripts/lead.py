"""Causal query blocks that end at row Sq (``gluon_fwd._causal_lead``) against blocks that
start at row 0. With 192-row blocks at S=4k the last block of every head held 64 real rows
and two warpgroups of padding; its one warpgroup of real rows, the longest of the head,
walked all 64 key tiles alone, its softmax unhidden by a partner's GEMMs. With the lead the
padding sits in the first block, whose rows see one key tile.

"no lead" is a second copy of gluon_fwd whose ``_causal_lead`` returns 0 (its own kernels,
so its own binaries); "lead" is the tree's. Auto's config for each cell, each variant checked
against the fp64 reference (windows.checked: fresh independent Q, K, V; O and LSE
NaN-poisoned before a rerun that must give the same bits), then windows.run_cells' two
windows. Ratio: no lead's time over lead's (> 1: the lead is faster).
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=600 python <this script> [B,Hq,Hkv,S,D ...]"""
import dataclasses
import importlib.util
import os
import sys

from triton.experimental import gluon
from triton.runtime.jit import JITCallable
from triton.experimental.gluon import language as gl

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import causal_plan  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import graphs, inputs, label, passing, run_cells  # noqa: E402

CELLS = [(4, 16, 16, 4096, 128), (8, 16, 16, 2048, 128), (2, 16, 16, 8192, 128), (1, 16, 16, 16384, 128),
         (4, 32, 32, 4096, 64), (2, 32, 32, 8192, 64), (1, 32, 32, 16384, 64), (8, 32, 32, 2048, 64)]


@gluon.jit
def _no_lead(seq_q, n_m, BLOCK_M: gl.constexpr):
    return seq_q * 0


def _without_lead():
    spec = importlib.util.spec_from_file_location("flashcore.kernels.gluon_fwd_no_lead", gf.__file__)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod  # its dataclasses look their module up
    spec.loader.exec_module(mod)
    mod._causal_lead = _no_lead
    # Building _LAUNCHERS hashed the kernels (a dict key), which fixed their cache keys
    # before the patch: unset, the patched kernels would load the tree's binaries from
    # Triton's disk cache.
    for fn in vars(mod).values():
        if isinstance(fn, JITCallable):
            fn.hash = None
    mod._LAUNCHERS = {fn: mod.CachedLauncher(fn) for fn in mod._LAUNCHERS}
    assert mod._gluon_fwd_ws_kernel.cache_key != gf._gluon_fwd_ws_kernel.cache_key
    return mod


OLD = _without_lead()


def cell(c, log):
    b, hq, hkv, s, d = c
    sets = inputs(b, hq, hkv, s, d, s + d + 7)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    assert not gf.stream_k(cfg, True), "a plan's host table has its own lead (causal_plan.causal_lead)"
    fns = {}
    for name, mod in (("no lead", OLD), ("lead", gf)):
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, True, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    header = f"{label(cfg)}, lead {causal_plan.causal_lead(s, cfg.block_m)} rows; no lead's time / this"
    return case, header, 4 * b * hq * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
    run_cells("lead", cells, cell)
