"""Runs at af51a70, or with ../patches/share-and-rowsum.patch applied (both knobs were removed
after this probe: kernel log v30).

H100: query blocks of one head share each K/V tile through TMA multicast (Config.share),
and the row sums from the P @ V pass (Config.mma_rowsum, built in v29, not yet measured).

Prediction (kernel log v30): every CTA of the seed loads all its key tiles up front, so
L2 sends 136 KB per CTA at B=2 (128 CTAs, 17 MB) against 72 KB at B=1 (9 MB); at ~6-7 TB/s
that is ~2.5 us against ~1.4 us of the 5.4-5.8 us B=2 chain. Sharing each tile between two
query blocks halves that traffic: B=2 toward B=1's ~4.9 us; B=1 split 2 gains less (its
K/V bytes per CTA already halve with the split).

Checks every new config (fp64 reference, poisoned O and LSE; odd Sq pads a phantom block
into the last group), then times the seed's cells in paired graph rounds against Gluon."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
B1_FULL = [C(128, 2, 2), C(128, 2, 2, share=2), C(128, 2, 2, mma_rowsum=True), C(128, 1, 4, wgs=2, share=2)]
B1_CAUSAL = [C(128, 2, 2, exclusive=True), C(128, 2, 2, exclusive=True, share=2), C(128, 2, 2, share=2),
             C(128, 2, 2, exclusive=True, mma_rowsum=True)]
B2 = [C(128, 1, 4, wgs=2), C(128, 1, 4, wgs=2, share=2), C(128, 1, 4, wgs=2, share=4),
      C(128, 1, 4, wgs=2, mma_rowsum=True), C(128, 1, 4, wgs=2, share=2, mma_rowsum=True), C(128, 2, 2, share=2)]
CELLS = {(1, False): B1_FULL, (1, True): B1_CAUSAL, (2, False): B2, (2, True): B2}
run("share", CELLS, lambda c: c.share > 1 or c.mma_rowsum)
