"""Call 3: which config stops making progress at B=8 H=16 S=2k D=128 causal in fp16 (call 2 and
v51's call 3 both hung in power.py's long window there). One config a process: graph replays
of ~30 ms of calls rotating three input sets, synchronised after each replay, progress printed.
    PYTHONPATH=$PWD/src DTYPE=fp16 python <this script> CONFIG SECONDS"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from windows import graphs, inputs, passing  # noqa: E402

import parts  # noqa: E402

CONFIGS = dict(auto=None, s2=parts.S2, s3=parts.S3, wide0=gf.Config(128, 128, 8, 2, True, persistent=True))
B, H, S, D = [int(x) for x in os.environ.get("CELL", "8,16,2048,128").split(",")]

if __name__ == "__main__":
    name, seconds = sys.argv[1], float(sys.argv[2])
    cfg = CONFIGS[name] or gf.heuristic_config(90, D, 2, True, S, S, B * H)
    sets = inputs(B, H, H, S, D, S + D + 3)
    run = gf.prepare(*sets[0], True, D ** -0.5, cfg, store_lse=True)
    fn = passing(run, sets, 1, True, sys.stdout, f"{name} {cfg}")
    _, ((g, calls),) = graphs({name: fn}, sets)
    t0, n = time.time(), 0
    while time.time() - t0 < seconds:
        g.replay()
        torch.cuda.synchronize()
        n += 1
        if n % 25 == 0:
            print(f"{time.time() - t0:6.1f} s: {n} replays of {calls} calls", flush=True)
    print(f"{name}: {n} replays of {calls} calls done in {time.time() - t0:.1f} s", flush=True)
