"""Where the energy of a call goes, for the power-limited cells: a diagnostic, not a candidate.

"half L2" is a second copy of gluon_fwd (its own binaries: ../../2026-11-27-h100-causal-lead/
scripts/copies.py) whose producer copies K and V only for even key tiles; for odd ones it
arrives on the ready barriers and the consumers compute on the slot's stale contents. Its
output is wrong, so it is not checked; it does the tree's GEMMs and softmax on half of the
tree's L2-to-SM (and DRAM) bytes. Its energy a call against the tree's bounds what TMA
multicast to a pair of CTAs (which halves the L2 reads) could save under the 700 W limit.
The tree passes windows.checked first. "matmul" is torch.mm at 8192^3, for the GEMM's own
energy per FLOP at the limit. windows.run_cells' two windows; the long one is what counts.
    PYTHONPATH=$PWD/src OUT=... DTYPE=bf16 LONG_MS=800 python <this script>"""
import dataclasses
import os
import sys

import torch
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier, tma

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-causal-lead/scripts"))
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

from copies import patched_copy  # noqa: E402
from windows import DTYPE, graphs, inputs, label, passing, run_cells  # noqa: E402

CELLS = [(4, 16, 16, 4096, 128, 1), (2, 32, 32, 8192, 64, 0), "matmul"]  # D=128 full's variant spills 56 B


@gluon.jit
def _load_kv_half(ring, t, slot, phase, off_b, off_hkv, BLOCK_N: gl.constexpr):
    desc_k, desc_v, k_smem, v_smem, k_ready, v_ready, k_empty, v_empty = ring
    mbarrier.wait(k_empty.index(slot), phase)
    if t % 2 == 0:
        mbarrier.expect(k_ready.index(slot), desc_k.block_type.nbytes)
        tma.async_copy_global_to_shared(desc_k, [off_b, off_hkv, t * BLOCK_N, 0], k_ready.index(slot),
                                        k_smem.index(slot))
    else:
        mbarrier.arrive(k_ready.index(slot))
    mbarrier.wait(v_empty.index(slot), phase)
    if t % 2 == 0:
        mbarrier.expect(v_ready.index(slot), desc_v.block_type.nbytes)
        tma.async_copy_global_to_shared(desc_v, [off_b, off_hkv, t * BLOCK_N, 0], v_ready.index(slot),
                                        v_smem.index(slot))
    else:
        mbarrier.arrive(v_ready.index(slot))


HALF = patched_copy("half_l2", _load_kv=_load_kv_half)


def matmul(log):
    n = 8192
    g = torch.Generator(device="cuda").manual_seed(5)
    a, b = (torch.randn(n, n, device="cuda", dtype=DTYPE, generator=g) for _ in range(2))
    c = torch.empty(n, n, device="cuda", dtype=DTYPE)
    sets = [(a, b, c)] * 3
    fns = {"matmul": lambda x, y, z: torch.mm(x, y, out=z)}
    return "matmul 8192^3", "torch.mm", 2 * n ** 3, sets, *graphs(fns, sets)


def cell(c, log):
    if c == "matmul":
        return matmul(log)
    b, hq, hkv, s, d, causal = c
    causal = bool(causal)
    sets = inputs(b, hq, hkv, s, d, s + d + 13)
    cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * hq)
    tree = gf.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=True)
    half = HALF.prepare(*sets[0], causal, d ** -0.5, HALF.Config(**dataclasses.asdict(cfg)), store_lse=True)
    fns = {"tree": passing(tree, sets, hq // hkv, causal, log, f"B{b} S{s} D{d} tree"),
           "half L2 (wrong output)": lambda q, k, v: half(q, k, v)[0]}
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    return case, f"{label(cfg)}; tree's time / this", 4 * b * hq * s * s * d / (2 if causal else 1), sets, \
        *graphs(fns, sets)


if __name__ == "__main__":
    run_cells("energy", CELLS, cell)
