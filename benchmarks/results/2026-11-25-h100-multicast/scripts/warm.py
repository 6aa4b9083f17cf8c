"""H100: the shipped seed configs with one input set (L2-warm: NSETS=1) against 48 sets
rotated past L2 (the default), to split B=2's load phase into DRAM and delivery to the SMs.

Prediction (kernel log v30): if B=2 is bound by what each SM takes in (136 KB at ~60 GB/s),
L2-warm B=2 stays near 5.3-5.5 us; if DRAM latency and bandwidth bind it, it falls toward
B=1's ~4.5."""
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
CELLS = {
    (1, False): [C(128, 2, 2)],
    (1, True): [C(128, 2, 2, exclusive=True, halves=True)],
    (2, False): [C(128, 1, 4, wgs=2, interleave=True), C(128, 1, 4, wgs=1)],
    (2, True): [C(128, 1, 4, wgs=2)],
}
run(f"warm-nsets{os.environ.get('NSETS', 48)}", CELLS, lambda c: False)
