"""Call 5: what v52's synced turn passes cost on full rows (v52 timed causal ones only; this
session's bench read D=128 full S=8k / 16k 3-4% under the previous run's). VARIANT "new" is
the tree's kernel, "old" warp 0's unsynchronised pass (../../2026-11-27-h100-causal-parts/
scripts/turns.py, which can hang in fp16). Auto's config for CELL, checked, then ROUNDS graph
replays of ~30 ms; prints the median us a call and p10/p90. Alternate the variants' processes.
    PYTHONPATH=$PWD/src DTYPE=bf16 CELL=B,H,S,D CAUSAL=0 python <this script> VARIANT ROUNDS"""
import importlib.util
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from stress import B, CAUSAL, D, H, S, gf, graphs, inputs, passing  # noqa: E402

_spec = importlib.util.spec_from_file_location(
    "old_turns", os.path.join(HERE, "../../2026-11-27-h100-causal-parts/scripts/turns.py"))

if __name__ == "__main__":
    variant, rounds = sys.argv[1], int(sys.argv[2])
    if variant == "old":
        old = importlib.util.module_from_spec(_spec)
        _spec.loader.exec_module(old)
        gf._pass_turn = old._pass_turn_unsynced
    cfg = gf.heuristic_config(90, D, 2, CAUSAL, S, S, B * H)
    sets = inputs(B, H, H, S, D, S + D + 3)
    run = gf.prepare(*sets[0], CAUSAL, D ** -0.5, cfg, store_lse=True)
    fn = passing(run, sets, 1, CAUSAL, sys.stdout, f"{variant} {cfg}")
    _, ((g, calls),) = graphs({variant: fn}, sets)
    times = []
    for _ in range(rounds):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record()
        g.replay()
        b.record()
        b.synchronize()
        times.append(a.elapsed_time(b) * 1e3 / calls)
    times.sort()
    n = len(times)
    flops = 4 * B * H * S * S * D / (2 if CAUSAL else 1)
    print(f"{variant} B{B} H{H} S{S} D{D} causal={CAUSAL}: {times[n // 2]:.1f} us [{times[n // 10]:.1f}, "
          f"{times[n * 9 // 10]:.1f}] {flops / times[n // 2] / 1e6:.0f} TF", flush=True)
