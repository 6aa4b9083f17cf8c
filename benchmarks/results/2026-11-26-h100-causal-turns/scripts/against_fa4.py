"""Run 23: auto (this tree: causal three-warpgroup builds skip their unseen tiles) against FA4
and the same config built from the tree before the change (``baseline.py``, as own_tiles.py
says), in paired CUDA-graph rounds (``ring_pos.compare``: bf16, 11 rounds of 30 ms, two input
sets rotated). Ratio = auto's time / the other's (< 1: auto is faster).
    PYTHONPATH=$PWD/src:<FA4 site> python <this script>"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-26-h100-own-rows/scripts"))
sys.path.insert(0, HERE)
import ring_pos  # noqa: E402
import torch  # noqa: E402

from flashcore import dispatch  # noqa: E402
from own_tiles import old  # noqa: E402

ring_pos.CELLS = [(2, 32, 8192, 64, True), (1, 32, 16384, 64, True), (4, 32, 4096, 64, True)]
ring_pos.ROUNDS = int(os.environ.get("ROUNDS", 11))


def before(d):
    def prep(q, k, v, causal, scale):
        cfg = dispatch.kernel_config("gluon", 90, torch.bfloat16, d, causal, q.shape[2], k.shape[2],
                                     q.shape[0] * q.shape[1])
        return old.prepare(q, k, v, causal, scale, old.Config(**cfg.as_dict()), store_lse=False)
    return [("before", prep)]


ring_pos.compare("against_fa4", before)
