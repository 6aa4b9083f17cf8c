"""H100 (run 3): the rings launched without a cluster (Config.clusterless) against the clusters
of one they launched, beside auto (Gluon) and FA4 in paired CUDA-graph rounds (ring_pos.compare).

Prediction: v33's Nsight Compute reading had the ring's QK GEMM waiting three times as long as
FA4's, whose sm_90 kernel launches no cluster. If the cluster launch is why (placement, or the
cluster barrier's cost), clusterless rings gain a few %; if not, no change.

First the gpu tier's ring checks (tests/kernels/test_cute_fwd.py's reference test, its cases)
for the clusterless RINGS and a clusterless persistent ring."""
import dataclasses
import os
import sys

import pytest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../../../tests/kernels"))
import test_cute_fwd as t  # noqa: E402
from ring_pos import OUT, cf, compare  # noqa: E402

free = lambda c: dataclasses.replace(c, clusterless=True)  # noqa: E731
CHECKED = [free(c) for c in sorted(set(cf.RINGS.values()), key=str)] + [
    cf.Config(128, 1, 1, wgs=2, stages=2, persistent=True, pinned=True, clusterless=True)]
fails = 0
with open(os.path.join(OUT, "ring_launch_checks.log"), "w") as log:
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
compare("ring_launch", lambda d: [
    ("ring", lambda q, k, v, causal, scale: cf.prepare(q, k, v, causal, scale, cf.RINGS[d])),
    ("clusterless", lambda q, k, v, causal, scale: cf.prepare(q, k, v, causal, scale, free(cf.RINGS[d])))])
