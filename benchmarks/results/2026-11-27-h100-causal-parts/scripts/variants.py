"""Call 4: the three-stage causal 192x64 config hangs within a second of graph replays at
B=8 H=16 S=2k D=128 in fp16 (call 3; s2, auto's 128x128 and 128x128 without packed sums ran
12 s each). Which part of it: the per-warpgroup skip, the skip's unsynchronised releases,
the packed sums, the dtype, the length? One variant a process, run as hang.py runs a config.
    PYTHONPATH=$PWD/src DTYPE=fp16 CELL=B,H,S,D python <this script> VARIANT SECONDS"""
import dataclasses
import os
import sys
import time

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from hang import B, D, H, S, gf, graphs, inputs, passing  # noqa: E402

_ORIG_PASS = gf._pass_unseen


@gluon.constexpr_function
def _skips_on_d64_only(ws, ts, num_wg, causal, build):
    return bool(ws) and ts == 1 and num_wg == 3 and bool(causal) and build == 64


@gluon.jit
def _pass_unseen_synced(own, n_tiles, ring0, turn0, k_bars, v_bars, k_empty, v_empty, turns, STAGES: gl.constexpr,
                        SLOT0: gl.constexpr, WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr,
                        LEAN: gl.constexpr):
    _ORIG_PASS(own, n_tiles, ring0, turn0, k_bars, v_bars, k_empty, v_empty, turns, STAGES, SLOT0, WG, NUM_WG,
               PINGPONG, False)


def apply(variant):
    """The config for ``variant``, after patching the kernel's helpers where it needs to."""
    s3 = gf._THREE_WARPGROUPS_CAUSAL_64
    if variant == "s2":
        return dataclasses.replace(s3, num_stages=2)
    if variant == "noskip":
        gf._skips_unseen = _skips_on_d64_only
    if variant == "synced":
        gf._pass_unseen = _pass_unseen_synced
    if variant == "pk0":
        return dataclasses.replace(s3, packed_sums=0)
    return s3


if __name__ == "__main__":
    name, seconds = sys.argv[1], float(sys.argv[2])
    cfg = apply(name)
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
