"""H100: one cute_fwd.Config knob (env KNOB) against auto's CuTe configs at the seed (kernel log v33).

KNOB=tree (runs 1-2, at c1a0e02): the softmax's row max and row sum over four independent
partials instead of one serial chain of 32-64 FMNMX / FADD per row.

Prediction: the chain sits on each tile's critical path between the QK GEMM's completion and
the next GEMM's issue (offline SASS: one serial FMNMX chain per row; the tree build has four,
same instruction count). The seed is latency-bound (v29: issue slots 8-16% busy), so it should
gain most, ~0.1-0.2 us per tile on the chain; the rings a few %.

KNOB=straight (runs 3-4): no branch between a P @ V GEMM's issue and its wait (Config.straight).
Prediction: offline SASS puts ptxas's wait for the P @ V GEMM (WARPGROUP.DEPBAR.LE gsb0, 0x0) at
the mask's branch, ahead of the softmax it should overlap; with the ring's masked tiles in a loop
of their own it sits after the row max, as in FA4's loop (437 instructions; ours 438 unmasked).
The P @ V GEMM (a quarter to a half of a tile's tensor work) then runs under the softmax: a few %
on long rows. At the seed the resident kernel's registers (167 of 168) force an early wait anyway:
little change expected.

1. The seed's four cells (seed_cells.run: fp16 checks of every knob config on odd shapes, then
   paired CUDA-graph rounds over 48 input sets against Gluon): auto's CuTe config, then the same
   with the knob on.
2. The rings: run wgs.py (SET=6 checks, incl. shapes with more query blocks than SMs) with
   CELLS set to RINGS[d] and RINGS[d] with the knob (see meta.json for the command)."""
import dataclasses
import os
import sys

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

KNOB = os.environ.get("KNOB", "tree")
cells = {}
for b in (1, 2):
    for causal in (False, True):
        shipped = cf.heuristic_config(90, 64, 2, causal, 512, 512, b * 8)
        cells[(b, causal)] = [shipped, dataclasses.replace(shipped, **{KNOB: True})]
print(f"each cell: auto's CuTe config, then the same with {KNOB}=True", flush=True)
run(f"{KNOB}-seed", cells, lambda c: getattr(c, KNOB))
