"""Half of Q in registers on the three-warpgroup D=128 builds (192x64 tiles): the S GEMM takes
Q's first 64 columns from registers (loaded once per query block) and the other 64 from
shared memory, so a warpgroup's shared-memory reads per key tile fall from 48 KB (Q, K and V,
16 KB each) to 40 KB. A whole Q spills 520-600 B there (offline); half is spill-free in both
dtypes causal and in bf16 full (fp16 full: 16 B).

"smem Q" is a second copy of gluon_fwd whose ``_q_register_cols`` keeps Q in shared memory
on three warpgroups (its own cache keys, so its own binaries: ../../2026-11-27-h100-causal-lead/
scripts/copies.py); "half Q" is the tree's. Auto's config for each cell, each variant checked
against the fp64 reference (windows.checked), then windows.run_cells' two windows. Ratio:
smem Q's time over half Q's (> 1: half Q in registers is faster).
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=600 python <this script> [B,Hq,Hkv,S,D,causal ...]"""
import dataclasses
import os
import sys

from triton.experimental import gluon

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-causal-lead/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from copies import patched_copy  # noqa: E402
from windows import graphs, inputs, label, passing, run_cells  # noqa: E402

CELLS = [(4, 16, 16, 4096, 128, 1), (2, 16, 16, 8192, 128, 1), (8, 16, 16, 2048, 128, 1), (4, 32, 8, 4096, 128, 1),
         (2, 16, 16, 8192, 128, 0), (1, 16, 16, 16384, 128, 0)]


@gluon.constexpr_function
def _smem_q(persistent, num_wg, head_dim):
    return 128 if bool(persistent) and num_wg == 2 and head_dim == 128 else 0


OLD = patched_copy("smem_q", _q_register_cols=_smem_q)


def cell(c, log):
    b, hq, hkv, s, d, causal = c
    causal = bool(causal)
    sets = inputs(b, hq, hkv, s, d, s + d + 11)
    cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * hq)
    assert cfg.block_m == 192, cfg
    fns = {}
    for name, mod in (("smem Q", OLD), ("half Q", gf)):
        run = mod.prepare(*sets[0], causal, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[name] = passing(run, sets, hq // hkv, causal, log, f"B{b} H{hq}/{hkv} S{s} D{d} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    header = f"{label(cfg)}; smem Q's time / this"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, header, flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    cells = [tuple(int(x) for x in a.split(",")) for a in sys.argv[1:]] or CELLS
    run_cells("qsplit", cells, cell)
