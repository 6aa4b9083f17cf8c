"""How many waves of items the persistent causal tail should hold (``Config.causal_tail``) on
the D=128 build's causal rows of at most 2k keys, where the tree's rule (``tail_heads``:
causal_chunk's half-L2 width capped by ``one_wave_tail``) gives about one wave. v59 (tail-scope
call 16) read 32 heads faster than one wave's 17 at D=80 / 96 S=1k, and slower at D=96 S=2k.
Each cell: auto's config as the heuristic gives it with causal_tail 0 (the rule, first: the
ratios are its time over each), then causal_tail = each of WAVES_LIST, every one launched
through ``prepare`` and checked against the fp64 reference (windows.passing), then cuDNN;
windows.run_cells' two windows (30 ms paired rounds; each alone for LONG_MS). API=1 (call 3)
adds auto through ``flashcore.attention`` (the heuristic's config as shipped) after the rule.
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn WAVES_CELLS="16,28,28,1024,72 ..." \
        WAVES_LIST="2,3;..." python <this script>
WAVES_CELLS: b,hq,hkv,s,d per cell; WAVES_LIST: one comma list of waves per cell."""
import dataclasses
import os
import sys

import flashcore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

CELLS = [tuple(int(x) for x in c.split(",")) for c in os.environ["WAVES_CELLS"].split()]
WAVES = [[int(w) for w in t.split(",")] for t in os.environ["WAVES_LIST"].split(";")]
FACTS = (132, 50 << 20)


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d = c
    group = hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    auto = dataclasses.replace(gf.heuristic_config(90, d, 2, True, s, s, b * hq), causal_tail=0)
    assert auto.persistent and not auto.stream_k, f"{c}: auto ({label(auto)}) draws no persistent causal order"
    fns = {}
    for waves in [0] + WAVES[CELLS.index(c)]:
        config = dataclasses.replace(auto, causal_tail=waves)
        heads = gf.tail_heads(config, True, s, s, d, 2, group, FACTS)
        name = f"{waves} waves: {heads} heads" if waves else f"rule: {heads} heads"
        run = gf.prepare(*sets[0], True, d ** -0.5, config, store_lse=True)
        fns[name] = passing(run, sets, group, True, log, f"{c} {name}")
        if not waves and os.environ.get("API") == "1":
            fns["auto (API)"] = lambda q, k, v: flashcore.attention(q, k, v, causal=True)
    fns.update(peers(sets, True))
    case = f"B{b} H{hq}/{hkv} S{s} D{d} causal"
    return case, f"{label(auto)}; the rule's time / this", 4 * b * hq * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("WAVES_NAME", "waves"), CELLS, cell)
