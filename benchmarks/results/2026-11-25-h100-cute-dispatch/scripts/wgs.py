"""H100: two consumer warpgroups per CTA in the cluster kernel (Config.wgs = 2), each walking
half of the CTA's key tiles, merged through shared memory. Prediction: at B=1 the chain per
warpgroup drops to one key tile (split 2 x 2 warpgroups); at B=2 one CTA per query block with
two warpgroups of two tiles each replaces Gluon's four-tile chain.

Checks every two-warpgroup config, then times the seed's cells (seed_cells.py)."""
from flashcore.kernels import cute_fwd as cf
from seed_cells import run

C = cf.Config
CELLS = {
    (1, False): [C(128, 2, 2), C(128, 2, 2, wgs=2), C(128, 1, 4, wgs=2)],
    (1, True): [C(128, 2, 2, exclusive=True), C(128, 2, 2, wgs=2), C(128, 1, 4, wgs=2)],
    (2, False): [C(128, 2, 2), C(128, 1, 4, wgs=2), C(128, 1, 4)],
    (2, True): [C(128, 2, 2), C(128, 1, 4, wgs=2), C(128, 1, 4)],
}
run("wgs", CELLS, lambda c: c.wgs > 1)
