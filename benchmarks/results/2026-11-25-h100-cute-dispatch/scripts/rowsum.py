"""Runs at af51a70, or with ../../2026-11-25-h100-multicast/patches/share-and-rowsum.patch applied
(both knobs were removed after this probe: kernel log v30).

H100: row sums from the P @ V pass (Config.mma_rowsum: a second wgmma of P against a tile
of ones, N = 8) in place of one FADD per score. Prediction: the softmax is issue-bound at
D=64 (v29's ncu), so 64 fewer instructions per thread per tile (~20% of the softmax) buy
~3% at B=1 (two tiles per warpgroup) and more at B=2 (two warpgroups per SM).

Checks every mma_rowsum config, then times the seed's cells (seed_cells.py)."""
from flashcore.kernels import cute_fwd as cf
from seed_cells import run

C = cf.Config
CELLS = {
    (1, False): [C(128, 2, 2), C(128, 2, 2, mma_rowsum=True)],
    (1, True): [C(128, 2, 2, exclusive=True), C(128, 2, 2, exclusive=True, mma_rowsum=True)],
    (2, False): [C(128, 1, 4, wgs=2), C(128, 1, 4, wgs=2, mma_rowsum=True)],
    (2, True): [C(128, 1, 4, wgs=2), C(128, 1, 4, wgs=2, mma_rowsum=True)],
}
run("rowsum", CELLS, lambda c: c.mma_rowsum)
