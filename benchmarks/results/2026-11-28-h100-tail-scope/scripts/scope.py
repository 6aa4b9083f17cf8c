"""Does the one-wave causal tail (gluon_fwd.one_wave_tail, shipped for D=128 MHA causal rows of
at most 2k keys) also pay on the other persistent causal launches of at most 2k keys, where the
half-L2 rule (causal_chunk) still sets the tail: D=64 S=2k (192x128, three warpgroups) and GQA
32/8 D=128 S=1k / 2k? The tail is a launch integer, so each width is the same binary launched
with another tail (gluon_fwd.causal_chunk replaced on the host while its plan is prepared; the
cap returns None on these cells). Each width checked against the fp64 reference
(windows.passing), then windows.run_cells' two windows (30 ms paired rounds; each provider alone
for LONG_MS) with cuDNN. Ratio: auto's time over this one's (> 1: the width is faster).
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn SCOPE_CELLS="8,32,32,2048,64 ..." \
        SCOPE_TAILS="d,24,12,6;..." python <this script>
SCOPE_CELLS: b,hq,hkv,s,d per cell; SCOPE_TAILS: one comma list per cell ("d": the rule)."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
import flashcore  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

CELLS = [tuple(int(x) for x in c.split(",")) for c in os.environ["SCOPE_CELLS"].split()]
TAILS = [t.split(",") for t in os.environ["SCOPE_TAILS"].split(";")]


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d = c
    group = hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=True)}
    rule = gf.causal_chunk
    auto = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    assert auto.persistent, f"{c}: auto ({label(auto)}) has no persistent causal order"
    for width in TAILS[CELLS.index(c)]:
        if width != "d":
            gf.causal_chunk = lambda *a, w=int(width): w
        try:
            run = gf.prepare(*sets[0], True, d ** -0.5, auto, store_lse=True)
        finally:
            gf.causal_chunk = rule
        name = f"tail {width if width != 'd' else rule(s, d, 2, group, 50 << 20)}{' (rule)' if width == 'd' else ''}"
        fns[name] = passing(run, sets, group, True, log, f"{c} {name}")
    fns.update(peers(sets, True))
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"auto {label(auto)}; auto's time / this", 4 * b * hq * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("SCOPE_NAME", "scope"), CELLS, cell)
