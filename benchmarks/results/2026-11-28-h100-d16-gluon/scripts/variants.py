"""Call 2's two D=16 cells where the Triton TMA kernel led auto's stage 1 (64x128, one
warpgroup: B=16 H=128 S=1k full 1.11x, B=4 H=128 S=4k causal 1.04x), and the same shapes at D=32
and at B=8 H=64 S=2k: auto through ``flashcore.attention``, ``backend="hopper"``, and auto's
Gluon config with fields replaced (knobs.py's VARIANTS), each checked against the fp64
reference, in windows.run_cells' two windows.
    PYTHONPATH=$PWD/src DTYPE=bf16 D16_CELLS="16,128,128,1024,16,0 ..." \
        VARIANTS="w3:block_m=192,num_warps=12,num_stages=3,warp_specialize=1,pingpong=1,persistent=1" \
        python <this script>
BASE: the backends through the API before the variants (default "auto hopper"; added after
call 31, whose D=24 cell stopped at ``backend="hopper"``, which refuses D=24)."""
import dataclasses
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from backends import CELLS, picked, through_api  # noqa: E402

from flashcore.kernels import gluon_fwd as gf  # noqa: E402

VARIANTS = [(v.split(":")[0], {kv.split("=")[0]: int(kv.split("=")[1]) for kv in v.split(":")[1].split(",")})
            for v in os.environ["VARIANTS"].split()]


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, passing
    b, hq, hkv, s, d, causal = c
    causal, group = bool(causal), hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    fns = {name: passing(through_api(name, causal), sets, group, causal, log, f"{c} {name}")
           for name in os.environ.get("BASE", "auto hopper").split()}
    auto = gf.heuristic_config(90, d, 2, causal, s, s, b * hq, group=group)
    for name, fields in VARIANTS:
        # Bool fields as bools: Gluon's static asserts do not fold ``not 1``.
        config = dataclasses.replace(auto, **{k: type(getattr(auto, k))(v) for k, v in fields.items()})
        reason = gf.constraints(config, d, causal=causal)
        if config == auto or reason:
            print(f"{c} {name}: skipped ({reason or 'auto'})", flush=True)
            continue
        run = gf.prepare(*sets[0], causal, d ** -0.5, config, store_lse=True)
        fns[name] = passing(run, sets, group, causal, log, f"{c} {name}")
    fns.update(peers(sets, causal))
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"auto: {picked(*sets[0], causal)}; auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("NAME", "variants"), CELLS, cell)
