"""The shipped rule (``gluon_fwd.few_causal_items_balance``) against the config auto ran
before it (the rule patched off), each through ``prepare`` and checked against the fp64
reference (windows.passing), then auto through ``flashcore.attention`` and the peers (PEERS),
in windows.run_cells' two windows (30 ms paired rounds; alone LONG_MS). Ratios: auto's time
over each (> 1: auto is slower than that one).
    PYTHONPATH=$PWD/src:<FA4 site> DTYPE=fp16 PEERS=fa4 CONFIRM_CELLS="2,8,8,3000,128,1 ..." python confirm.py
CONFIRM_CELLS: b,hq,hkv,s,d,causal per cell."""
import os
import sys

import flashcore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

CELLS = [tuple(int(x) for x in c.split(",")) for c in os.environ["CONFIRM_CELLS"].split()]


def old_config(*args, **kwargs):
    # heuristic_config is cached: call 40 read the rule's config twice before the clears.
    rule = gf.few_causal_items_balance
    gf.few_causal_items_balance = lambda seq_q, batch_heads: False
    gf.heuristic_config.cache_clear()
    try:
        return gf.heuristic_config(*args, **kwargs)
    finally:
        gf.few_causal_items_balance = rule
        gf.heuristic_config.cache_clear()


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d, causal = c
    causal, group = bool(causal), hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    args = (90, d, 2, causal, s, s, b * hq)
    new, old = gf.heuristic_config(*args, group=group), old_config(*args, group=group)
    fns = {}
    for name, config in (("auto", new), ("old", old)):
        run = gf.prepare(*sets[0], causal, d ** -0.5, config, store_lse=True)
        fns[name] = passing(run, sets, group, causal, log, f"{c} {name} {label(config)}")
    fns["auto (API)"] = lambda q, k, v: flashcore.attention(q, k, v, causal=causal)
    fns.update(peers(sets, causal))
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"{label(new)} against {label(old)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("NAME", "confirm"), CELLS, cell)
