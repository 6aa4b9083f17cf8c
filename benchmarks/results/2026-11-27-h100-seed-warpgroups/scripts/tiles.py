"""H100: the seed at B=2 with four warpgroups of one key tile each, or 64-key tiles.

Prediction (kernel log v57). v30's trace of B=2 (one CTA per query block, two warpgroups of
two 128-key tiles) spends ~2.4 us from the first K landing to the last P @ V, against ~1.1 us
of tensor work per SM; B=1's lone warpgroup takes ~1.8 us for its two tiles. So each
warpgroup's chain of two tiles (QK, softmax, QK + PV, softmax, PV), not the tensor pipe, sets
the time. Four warpgroups of one tile each (wgs=4) shorten every chain to one tile and let
one warpgroup's softmax run under another's GEMMs; the merge of three partials stays in
shared memory. 64-key tiles start each chain on a smaller first load. Expect B=2 from ~5.4 to
~4.9 us if the chains were the limit; no gain if the intake (136 KB per SM) is.

Checks every new config on six shapes, full and causal, then the seed's cells in paired graph
rounds against Gluon (seed_cells.py), the shipped configs first among the variants."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
W4 = C(128, 1, 4, wgs=4)
N64W2 = C(64, 1, 8, wgs=2, interleave=True)
N64W4 = C(64, 1, 8, wgs=4, interleave=True)
CELLS = {
    (2, False): [C(128, 1, 4, wgs=2, interleave=True), W4, N64W2, N64W4],
    (2, True): [C(128, 1, 4, wgs=2), W4, C(64, 1, 8, wgs=2), N64W4],
    (1, False): [C(128, 2, 2), C(64, 2, 4)],
    (1, True): [C(128, 2, 2, exclusive=True, halves=True), C(64, 2, 4, exclusive=True, halves=True)],
}
run("tiles", CELLS, lambda c: c.wgs == 4 or c.block_n == 64)
