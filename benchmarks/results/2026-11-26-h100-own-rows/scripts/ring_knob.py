"""H100: RINGS[d] with boolean Config knobs on against RINGS[d], beside auto (Gluon) and FA4 in
paired CUDA-graph rounds (ring_pos.compare). Env KNOB: variants separated by ";", each a
","-separated set of knobs turned on. Run 3 was ring_launch.py at c84ec95.

KNOB=clusterless (run 3): the rings launched without a cluster against the clusters of one they
launched. Prediction: v33's Nsight Compute reading had the ring's QK GEMM waiting three times as
long as FA4's, whose sm_90 kernel launches no cluster. If the cluster launch is why, clusterless
rings gain a few %; if not, no change.

KNOB=late_free (run 5): the K slot freed after the tile's softmax. Prediction: in RINGS[64]'s
SASS the mask branch's first instruction rewrites the register the slot's arrive reads and waits
on it, ~2.7% of v33's stall samples at D=64 S=8k causal; offline, late_free puts the branch
right after the QK wait. D=64 gains up to ~2%; RINGS[128] (straight, no branch) stays even.

First the gpu tier's ring checks (tests/kernels/test_cute_fwd.py's reference test, its cases)
for RINGS with the knob and a persistent ring with it.

KNOB="straight;straight,split_max" (run 6): each row's max over two interleaved chains (even and
odd columns), as FA4's SASS has it, on top of straight (v34: at D=64 straight alone read
+0-1.7% on the mask-and-shift ring). Prediction: the softmax's first stretch after the QK wait
halves its dependent FMNMX chain; D=64 +1-2% over straight alone, D=128 +0-1%.

KNOB=v_in_turn (run 7): with turns (RINGS[64]), wait for tile j - 1's V after issuing tile j's QK
GEMM, inside the turn, as FA4's SASS does. Prediction: the QK GEMM issues as soon as K lands
and the turn comes, so D=64 gains ~1% when V lands late, else even. RINGS[128] has no turns: its
cells time the ring alone (variants that constraints() refuses are skipped).

KNOB=k_first (run 8): the loader loads tile j + 1's K before tile j's V, FA3's and FA4's producer
order (FA4's load(): K(first), then per step K(next) and V(prev)); ours loaded each tile's K and
V together, so the next K queued behind this V's free slot. Prediction: ncu (run 4) put the
ring's K-wait samples near FA4's, so K does not land late: even, at most +1% at D=64."""
import dataclasses
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../tests/kernels"))
import test_cute_fwd as t  # noqa: E402
from ring_pos import OUT, cf, compare  # noqa: E402

KNOB = os.environ.get("KNOB", "clusterless")
VARIANTS = [v.split(",") for v in KNOB.split(";")]
NAME = KNOB.replace(";", "_vs_").replace(",", "-")  # file names: no "+"


def with_knobs(config, knobs):
    return dataclasses.replace(config, **{k: True for k in knobs})


CHECKED = [with_knobs(c, knobs) for knobs in VARIANTS for c in sorted(set(cf.RINGS.values()), key=str)] + [
    with_knobs(cf.Config(128, 1, 1, wgs=2, stages=2, persistent=True, pinned=True), VARIANTS[-1])]
fails = 0
with open(os.path.join(OUT, f"ring_{NAME}_checks.log"), "w") as log:
    for config in CHECKED:
        for case in t.CASES + t.LONG_CASES:
            try:
                t.test_a_ring_matches_the_reference(config, *case)
                log.write(f"PASS {config} {case}\n")
            except pytest.skip.Exception as e:
                log.write(f"SKIP {config} {case}: {e}\n")
            except Exception as e:  # noqa: BLE001
                fails += 1
                log.write(f"FAIL {config} {case}: {type(e).__name__} {str(e)[:500]}\n")
    log.write(f"checks: {fails} failed\n")
print(f"checks: {fails} failed", flush=True)
compare(f"ring_{NAME}", lambda d: [
    ("ring", lambda q, k, v, causal, scale: cf.prepare(q, k, v, causal, scale, cf.RINGS[d]))] + [
    ("+".join(knobs), lambda q, k, v, causal, scale, knobs=knobs: cf.prepare(q, k, v, causal, scale,
                                                                            with_knobs(cf.RINGS[d], knobs)))
    for knobs in VARIANTS if cf.constraints(with_knobs(cf.RINGS[d], knobs), d, 8192) is None])
