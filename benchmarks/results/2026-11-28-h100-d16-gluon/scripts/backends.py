"""D=16 on the Gluon D=32 build (MIN_HEAD_DIM 16) against the paths auto took before: the Triton
TMA kernel (``backend="hopper"``, past one wave) and the portable kernel (``"triton"``, small
grids), each through ``flashcore.attention`` and checked against the fp64 reference on one KV
group (windows.passing), then PEERS, in windows.run_cells' two windows (30 ms paired rounds;
each alone for LONG_MS). The header names auto's kernel and, for Gluon, its config.
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn D16_CELLS="2,8,8,3000,16,1 ..." python <this script>
D16_CELLS (not CELLS, which cells.py reads): b,hq,hkv,s,d,causal per cell (Sq = Sk);
BACKENDS: the named backends (default "hopper triton")."""
import os
import sys

import flashcore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
from flashcore import dispatch  # noqa: E402

CELLS = [tuple(int(x) for x in c.split(",")) for c in os.environ["D16_CELLS"].split()]
BACKENDS = os.environ.get("BACKENDS", "hopper triton").split()


def through_api(backend, causal):
    return lambda q, k, v: flashcore.attention(q, k, v, causal=causal, return_lse=True, backend=backend)


def picked(q, k, v, causal):
    kernel = dispatch.kernel_for("auto", q, k, v, causal)
    if kernel != "gluon":
        return kernel
    from windows import label
    b, hq, s, d = q.shape
    config = dispatch.kernel_config("gluon", 90, q.dtype, d, causal, s, k.shape[2], b * hq, hq // k.shape[1])
    return f"gluon {label(config)}"


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, passing
    b, hq, hkv, s, d, causal = c
    causal, group = bool(causal), hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    fns = {}
    for name in ["auto"] + BACKENDS:
        fns[name] = passing(through_api(name, causal), sets, group, causal, log, f"{c} {name}")
    fns.update(peers(sets, causal))
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"auto: {picked(*sets[0], causal)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("NAME", "backends"), CELLS, cell)
