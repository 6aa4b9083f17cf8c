"""Runs at 91d89ec: the bulk copy then became the only merge path and Config.bulk_merge went away
(kernel log v30).

H100: the seed's merge as one bulk copy per warpgroup (Config.bulk_merge), and B=2's tiles
loaded round-robin between its warpgroups (Config.interleave).

Prediction (kernel log v30, from the trace of run 2): rank 0 of a B=1 cluster waits ~1.1 us
after rank 1 has issued its 1152 16-byte st.async stores (each counted on rank 0's barrier)
before its partial has landed; one 18 KB cp.async.bulk should land in ~0.1-0.2 us, so B=1
goes from ~4.9 to ~4.0-4.2 us. At B=2 warpgroup 1 waits behind warpgroup 0's tiles; round-robin
loads should start both at once and save part of that lag (~0.2 us).

Checks every new config on six shapes, full and causal, then the seed's cells in paired graph
rounds against Gluon (seed_cells.py)."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
B2 = [C(128, 1, 4, wgs=2), C(128, 1, 4, wgs=2, interleave=True), C(128, 2, 2, bulk_merge=True)]
CELLS = {
    (1, False): [C(128, 2, 2), C(128, 2, 2, bulk_merge=True), C(128, 2, 2, wgs=2, bulk_merge=True)],
    (1, True): [C(128, 2, 2, exclusive=True), C(128, 2, 2, exclusive=True, bulk_merge=True),
                C(128, 2, 2, wgs=2, exclusive=True, bulk_merge=True)],
    (2, False): B2,
    (2, True): B2,
}
run("bulk", CELLS, lambda c: c.bulk_merge or c.interleave)
