"""Call 6: what the synced turn passes cost. VARIANT "new" is the tree's kernel (turns passed
behind the partition barrier); "old" patches ``_pass_turn`` back to warp 0's unsynchronised
arrive (the kernel before this change, which can hang in fp16). Auto's config for CELL,
checked as hang.py does, then ROUNDS graph replays of ~30 ms; prints the median us a call
and the p10/p90. Run the variants in alternating processes.
    PYTHONPATH=$PWD/src DTYPE=bf16 CELL=B,H,S,D python <this script> VARIANT ROUNDS"""
import os
import sys

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hang import B, D, H, S, gf, graphs, inputs, passing  # noqa: E402


@gluon.jit
def _pass_turn_unsynced(turns, WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr):
    if PINGPONG:
        gf._unsynced(True)
        mbarrier.arrive(turns.index((WG + 1) % NUM_WG))


if __name__ == "__main__":
    variant, rounds = sys.argv[1], int(sys.argv[2])
    if variant == "old":
        gf._pass_turn = _pass_turn_unsynced
    cfg = gf.heuristic_config(90, D, 2, True, S, S, B * H)
    sets = inputs(B, H, H, S, D, S + D + 3)
    run = gf.prepare(*sets[0], True, D ** -0.5, cfg, store_lse=True)
    fn = passing(run, sets, 1, True, sys.stdout, f"{variant} {cfg}")
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
    flops = 4 * B * H * S * S * D / 2
    print(f"{variant} B{B} H{H} S{S} D{D} causal: {times[n // 2]:.1f} us [{times[n // 10]:.1f}, "
          f"{times[n * 9 // 10]:.1f}] {flops / times[n // 2] / 1e6:.0f} TF", flush=True)
