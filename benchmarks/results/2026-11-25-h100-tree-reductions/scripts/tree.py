"""H100: the softmax's row max and row sum over four independent partials (Config.tree) instead
of one serial chain of 32-64 FMNMX / FADD per row (kernel log v33).

Prediction: the chain sits on each tile's critical path between the QK GEMM's completion and
the next GEMM's issue (offline SASS: one serial FMNMX chain per row; the tree build has four,
same instruction count). The seed is latency-bound (v29: issue slots 8-16% busy), so it should
gain most, ~0.1-0.2 us per tile on the chain; the rings a few %.

1. The seed's four cells (seed_cells.run: fp16 checks of every tree config on odd shapes, then
   paired CUDA-graph rounds over 48 input sets against Gluon): auto's CuTe config, then the same
   with tree=True.
2. The rings: run wgs.py (SET=6 checks, incl. shapes with more query blocks than SMs) with
   CELLS set to RINGS[d] and RINGS[d] with tree=True (see meta.json for the command)."""
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

cells = {}
for b in (1, 2):
    for causal in (False, True):
        shipped = cf.heuristic_config(90, 64, 2, causal, 512, 512, b * 8)
        cells[(b, causal)] = [shipped, dataclasses.replace(shipped, tree=True)]
print("each cell: auto's CuTe config, then the same with tree=True", flush=True)
run("tree-seed", cells, lambda c: c.tree)
