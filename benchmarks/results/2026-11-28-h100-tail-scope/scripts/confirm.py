"""The one-wave causal tail as shipped on GQA (gluon_fwd.one_wave_tail, now for every D=128
causal launch of at most 2k keys) against the half-L2 rule it caps: auto through the API, auto's
config through ``prepare`` (the shipped tail, checked), the same config launched with the rule
alone (one_wave_tail replaced by None while its plan is prepared, checked), and cuDNN; then
windows.run_cells' two windows. Ratio: auto's time over this one's (> 1: faster than auto).
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn CONFIRM_CELLS="16,32,8,1024,128 ..." python <this script>"""
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
    b, hq, hkv, s, d = c
    group = hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + 2)
    auto = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=True)}
    run = gf.prepare(*sets[0], True, d ** -0.5, auto, store_lse=True)
    fns["one-wave tail"] = passing(run, sets, group, True, log, f"{c} one-wave tail")
    shipped = gf.one_wave_tail
    gf.one_wave_tail = lambda *a: None
    try:
        run = gf.prepare(*sets[0], True, d ** -0.5, auto, store_lse=True)
    finally:
        gf.one_wave_tail = shipped
    fns["half-L2 tail"] = passing(run, sets, group, True, log, f"{c} half-L2 tail")
    fns.update(peers(sets, True))
    tail = shipped(s, s, d, auto.block_m, 132)
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"auto {label(auto)}, tail {tail}; auto's time / this", 4 * b * hq * s * s * d / 2, sets, \
        *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    cells = [tuple(int(x) for x in c.split(",")) for c in os.environ["CONFIRM_CELLS"].split()]
    run_cells("confirm", cells, cell)
