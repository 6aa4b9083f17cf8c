"""H100: two query blocks per CTA of a split-2 cluster (Config.own_rows), a warpgroup each,
exchanging halves with the peer CTA's same warpgroup.

Prediction (kernel log v30, "What limits B=2"): at B=2 each SM must take in 136 KB (one query
block and all 512 keys), ~2.3 us of the ~5.5. Two blocks and half the keys per CTA take 80 KB,
and each warpgroup's chain is B=1's (two tiles, then the halves exchange). B=2 from 5.40 / 5.25
(run 5-halves) to ~5.0 us, near B=1's 4.65 / 4.27 plus the cost of two warpgroups sharing an SM.

Checks the new configs on six shapes, full and causal, then the seed's cells in paired graph
rounds against Gluon (seed_cells.py), with the shipped configs beside them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
OWN = C(128, 2, 2, wgs=2, halves=True, own_rows=True)
OWN_X = C(128, 2, 2, wgs=2, exclusive=True, halves=True, own_rows=True)
CELLS = {
    (2, False): [C(128, 1, 4, wgs=2, interleave=True), OWN, OWN_X],
    (2, True): [C(128, 1, 4, wgs=2), OWN, OWN_X],
    (1, False): [C(128, 2, 2), OWN],
    (1, True): [C(128, 2, 2, exclusive=True, halves=True), OWN_X],
}
run("own_rows", CELLS, lambda c: c.own_rows)
