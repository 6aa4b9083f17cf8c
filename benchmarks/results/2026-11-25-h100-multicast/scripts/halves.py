"""H100: each rank of a split-2 cluster finalizes and stores half of the block's rows
(Config.halves), so each direction of the cluster carries a 9 KB half partial instead of
rank 1 sending its whole 18 KB partial to rank 0.

Prediction (kernel log v30): the trace of run 4 puts ~0.85 us between rank 1's last P@V and
its partial landing in rank 0 (DSMEM at ~20 GB/s per SM). Two 9 KB copies in opposite
directions at once: ~0.4 us saved, B=1 from 4.67 / 4.55 to ~4.3 / 4.2 us.

Checks the new configs on six shapes, full and causal, then the seed's cells in paired graph
rounds against Gluon (seed_cells.py), with the shipped configs beside them."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
CELLS = {
    (1, False): [C(128, 2, 2), C(128, 2, 2, halves=True)],
    (1, True): [C(128, 2, 2, exclusive=True), C(128, 2, 2, exclusive=True, halves=True), C(128, 2, 2, halves=True)],
    (2, False): [C(128, 1, 4, wgs=2, interleave=True)],
    (2, True): [C(128, 1, 4, wgs=2)],
}
run("halves", CELLS, lambda c: c.halves)
