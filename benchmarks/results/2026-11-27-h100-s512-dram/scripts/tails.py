"""The one-wave causal tail (gluon_fwd.one_wave_tail) against the half-L2 rule it caps, on the
cells it changes (D=128 MHA causal with at most 2k keys): auto as shipped (through the API, and
through ``prepare``, checked), auto's config launched with the rule alone (one_wave_tail replaced by None while its plan is prepared), and
cuDNN. Each checked against the fp64 reference first (windows.checked), then windows.run_cells'
two windows. Ratio: auto's time over this one's (> 1: faster than auto).
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn python <this script>"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
import flashcore  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, h, s, d = c
    sets = inputs(b, h, h, s, d, s + d + 1)
    auto = gf.heuristic_config(90, d, 2, True, s, s, b * h)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=True)}
    run = gf.prepare(*sets[0], True, d ** -0.5, auto, store_lse=True)  # the shipped tail, checked
    fns["one-wave tail"] = passing(run, sets, 1, True, log, f"B{b} S{s} one-wave tail")
    shipped = gf.one_wave_tail
    gf.one_wave_tail = lambda *a: None
    try:
        run = gf.prepare(*sets[0], True, d ** -0.5, auto, store_lse=True)
    finally:
        gf.one_wave_tail = shipped
    fns["half-L2 tail"] = passing(run, sets, 1, True, log, f"B{b} S{s} half-L2 tail")
    fns.update(peers(sets, True))
    tail = shipped(s, s, d, 1, auto.block_m, 132)
    case = f"B{b} H{h} S{s} D{d} causal"
    return case, f"auto {label(auto)}, tail {tail}; auto's time / this", 4 * b * h * s * s * d / 2, sets, \
        *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    cells = [tuple(int(x) for x in c.split(",")) for c in os.environ.get("TAIL_CELLS", "16,16,1024,128 8,16,2048,128").split()]
    run_cells("tails", cells, cell)
