"""Which of a tuned config's knobs pays: auto's heuristic config (first: the ratios are its
time over each) against the same config with some fields replaced, each launched through
``prepare`` and checked against the fp64 reference (windows.passing), then cuDNN, in
windows.run_cells' two windows (30 ms paired rounds; each alone for LONG_MS). Call 1's tuner
confirmed packed_sums=1 + causal_tail=1 on fp16 D=96 B=4 H=16 S=4k causal at 1.072.
    PYTHONPATH=$PWD/src DTYPE=fp16 PEERS=cudnn KNOB_CELLS="4,16,16,4096,96,1 ..." \
        KNOB_VARIANTS="ps1:packed_sums=1 tail1:causal_tail=1 both:packed_sums=1,causal_tail=1" \
        python <this script>
KNOB_CELLS: b,hq,hkv,s,d,causal per cell; KNOB_VARIANTS: name:field=value[,field=value] each,
skipped on a cell where ``constraints`` rejects it. API=1 (call 3) adds auto through
``flashcore.attention`` after auto's config."""
import dataclasses
import os
import sys

import flashcore

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

CELLS = [tuple(int(x) for x in c.split(",")) for c in os.environ["KNOB_CELLS"].split()]
VARIANTS = [(v.split(":")[0], {kv.split("=")[0]: int(kv.split("=")[1]) for kv in v.split(":")[1].split(",")})
            for v in os.environ["KNOB_VARIANTS"].split()]


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d, causal = c
    causal, group = bool(causal), hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    auto = gf.heuristic_config(90, d, 2, causal, s, s, b * hq, group=group)
    fns = {}
    for name, fields in [("auto", {})] + VARIANTS:
        config = dataclasses.replace(auto, **fields)
        if config == auto and fields:
            continue
        reason = gf.constraints(config, d, causal=causal)
        if reason:
            print(f"{c} {name}: skipped ({reason})", flush=True)
            continue
        run = gf.prepare(*sets[0], causal, d ** -0.5, config, store_lse=True)
        fns[name] = passing(run, sets, group, causal, log, f"{c} {name}")
        if name == "auto" and os.environ.get("API") == "1":
            fns["auto (API)"] = lambda q, k, v: flashcore.attention(q, k, v, causal=causal)
    fns.update(peers(sets, causal))
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"{label(auto)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("KNOB_NAME", "knobs"), CELLS, cell)
