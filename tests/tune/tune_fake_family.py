"""A kernel family for the tuner's tests: pure PyTorch, with misbehaviour on demand.

``behaviour`` selects what a candidate does: compute correctly ("ok"), write NaN,
leave an element unwritten, raise as a CUDA fault would, hang, or kill its process.
Smaller ``block_m`` sleeps longer, so timing ranks points deterministically.
It is also a second, non-Triton family: the tuner must need no change for it.
"""

import os
import time
from dataclasses import dataclass

import torch

from flashcore.reference import attention_reference

SEARCH_SPACE = {
    "block_m": (16, 32, 64),
    "num_warps": (1, 2, 4),
    "behaviour": ("ok",),
}


@dataclass(frozen=True)
class Config:
    block_m: int = 16
    num_warps: int = 1
    behaviour: str = "ok"


def heuristic_config(head_dim: int, causal: bool) -> Config:
    return Config()


def constraints(config: Config, head_dim: int):
    if config.block_m * config.num_warps > 128:
        return f"fake register pressure: block_m * num_warps = {config.block_m * config.num_warps} > 128"
    return None


def forward(q, k, v, causal, scale, config, out=None, lse=None):
    b = config.behaviour
    if b == "hang":
        time.sleep(3600)
    if b == "crash":
        os._exit(17)  # what a GPU fault that kills the process looks like to the driver
    if b == "raise":
        raise RuntimeError("CUDA error: an illegal memory access was encountered (simulated)")
    time.sleep(0.002 * 64 / config.block_m)
    o, l = attention_reference(q, k, v, causal=causal, scale=scale, return_lse=True)
    if b == "nan":
        o = o.clone()
        o[0, 0, 0, 0] = float("nan")
    out = o if out is None else out.copy_(o)
    if b == "unwritten":
        out[0, 0, -1, -1] = float("nan")  # as if the last element were never stored
    lse = l.float() if lse is None else lse.copy_(l)
    return out, lse
