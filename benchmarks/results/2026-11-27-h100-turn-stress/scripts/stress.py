"""Call 1: auto's config on one cell, launched back to back for SECONDS after its check, to
look for hangs like v52's (turns passed early let a lagging warp be lapped on the turn
barrier) in every build with turns, full rows and causal. Graph replays of ~30 ms of calls
rotating three input sets, synchronised after each; the last line counts what finished.
    PYTHONPATH=$PWD/src DTYPE=fp16 CELL=B,H,S,D CAUSAL=1 python <this script> SECONDS"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import graphs, inputs, passing  # noqa: E402

B, H, S, D = [int(x) for x in os.environ["CELL"].split(",")]
CAUSAL = os.environ.get("CAUSAL", "1") == "1"

if __name__ == "__main__":
    seconds = float(sys.argv[1])
    cfg = gf.heuristic_config(90, D, 2, CAUSAL, S, S, B * H)
    sets = inputs(B, H, H, S, D, S + D + 5)
    run = gf.prepare(*sets[0], CAUSAL, D ** -0.5, cfg, store_lse=True)
    fn = passing(run, sets, 1, CAUSAL, sys.stdout, f"{os.environ['CELL']} causal={CAUSAL} {cfg}")
    _, ((g, calls),) = graphs({"auto": fn}, sets)
    t0, n = time.time(), 0
    while time.time() - t0 < seconds:
        g.replay()
        torch.cuda.synchronize()
        n += 1
    print(f"{n} replays of {calls} calls done in {time.time() - t0:.1f} s", flush=True)
