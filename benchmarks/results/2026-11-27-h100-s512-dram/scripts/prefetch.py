"""D=128 B=32 H=16 S=512 causal, stage 1 (64x32 tiles, four CTAs an SM): under Nsight Compute
(call 1) it reads DRAM at 68% of peak and gains only 3.5% from ncu's 1.33 GHz to the bench's
1.8 GHz, where cuDNN gains 12.5%: the CTAs wait on memory latency, not on DRAM bandwidth. A
head's eight CTAs start together and walk its K/V two tiles ahead, so each K/V tile costs the
leading CTA a DRAM round trip; a new CTA's Q is another.

Variants (copies of gluon_fwd built from its source with one edit: stage 1's kernel takes Q, K,
V as plain pointers too, and its first CTA of a head, thread 0 only, issues bulk L2 prefetches,
``cp.async.bulk.prefetch.L2.global``, after its own loads are issued):
  PF=1: the head's K and V, all Sk rows (two instructions);
  PF=2: the Q, K and V of head pid + AHEAD, the head that starts about AHEAD/66 waves later;
  PF=3: both.
PF=0 is the same copy without prefetches (against auto: the copy costs nothing). Contiguous
(B, H, S, D) inputs only: the offsets assume them. Each variant checked against the fp64
reference (windows.checked) before timing; windows.run_cells' two windows with cuDNN.
Ratio: auto's time over this one's (> 1: faster).
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn python <this script>"""
import dataclasses
import importlib.util
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
from triton.runtime.jit import JITCallable  # noqa: E402

import flashcore  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

PREFETCH = '''
@gluon.jit
def _l2_prefetch(ptr, nbytes):
    """Thread 0 asks L2 for nbytes from ptr (one bulk request; nothing lands in shared memory)."""
    gl.inline_asm_elementwise(
        "{ .reg .pred p; .reg .b32 t; mov.u32 t, %tid.x; setp.eq.u32 p, t, 0; "
        "@p cp.async.bulk.prefetch.L2.global [$1], $2; mov.b32 $0, 0; }",
        "=r,l,r", [ptr, nbytes], dtype=gl.int32, is_pure=False, pack=1)


@gluon.jit
def _head_prefetch(QP, KP, VP, bh, heads_q, group, seq_q, seq_k, HEAD_DIM: gl.constexpr, WITH_Q: gl.constexpr):
    hkv = heads_q // group
    kv_row = ((bh // heads_q) * hkv + (bh % heads_q) // group).to(gl.int64) * seq_k * HEAD_DIM
    _l2_prefetch(KP + kv_row, seq_k * HEAD_DIM * 2)
    _l2_prefetch(VP + kv_row, seq_k * HEAD_DIM * 2)
    if WITH_Q:
        _l2_prefetch(QP + bh.to(gl.int64) * seq_q * HEAD_DIM, seq_q * HEAD_DIM * 2)


@gluon.jit
def _gluon_fwd_kernel('''

HOOK = '''
    if PF > 0:
        if gl.program_id(0) == 0:
            if PF % 2 == 1:
                _head_prefetch(QP, KP, VP, pid_bh, heads_q, group, seq_q, seq_k, HEAD_DIM, False)
            if PF >= 2:
                if pid_bh + AHEAD < gl.num_programs(1):
                    _head_prefetch(QP, KP, VP, pid_bh + AHEAD, heads_q, group, seq_q, seq_k, HEAD_DIM, True)
    o, l_i, m_i = _attend(q_smem, q_bar, 0, q_bar, k_smem, v_smem, k_bars, v_bars, k_bars, v_bars, q_bar,'''


def variant(pf, ahead):
    """gluon_fwd's source with the edit, loaded as its own module (its kernels build their own binaries)."""
    src = open(gf.__file__).read()
    edits = [
        ("@gluon.jit\ndef _gluon_fwd_kernel(", PREFETCH),
        ("    desc_q, desc_k, desc_v, desc_o, LSE, PARTS, TICKETS,\n",
         "    desc_q, desc_k, desc_v, desc_o, LSE, PARTS, TICKETS, QP, KP, VP,\n"),
        ("    num_warps: gl.constexpr,\n):\n    \"\"\"Stage 1",
         f"    num_warps: gl.constexpr, PF: gl.constexpr = {pf}, AHEAD: gl.constexpr = {ahead},\n):\n"
         "    \"\"\"Stage 1"),
        ("    o, l_i, m_i = _attend(q_smem, q_bar, 0, q_bar, k_smem, v_smem, k_bars, v_bars, k_bars, v_bars, q_bar,",
         HOOK),
        ("            buffers = (lse, *(parts or kv_parts(config, items, build_dim, q.device)))",
         "            buffers = (lse, *parts, q, k, v)"),
    ]
    for old, new in edits:
        assert src.count(old) == 1, old
        src = src.replace(old, new)
    name = f"flashcore.kernels.gluon_fwd_pf{pf}_{ahead}"
    spec = importlib.util.spec_from_loader(name, loader=None, origin=gf.__file__)
    mod = importlib.util.module_from_spec(spec)
    mod.__file__ = gf.__file__
    sys.modules[name] = mod
    path = os.path.join(os.environ.get("OUT", "/tmp"), f"gluon_fwd_pf{pf}_{ahead}.py")
    open(path, "w").write(src)  # inspect.getsource (Triton's JIT) needs the text in a file
    mod.__file__ = path
    exec(compile(src, path, "exec"), mod.__dict__)
    for fn in vars(mod).values():
        if isinstance(fn, JITCallable):
            fn.hash = None
    mod._LAUNCHERS = {fn: mod.CachedLauncher(fn) for fn in mod._LAUNCHERS}  # keys hashed afresh
    return mod


VARIANTS = [(0, 0), (1, 0), (2, 32), (2, 64), (3, 32)]


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, h, s, d = c
    sets = inputs(b, h, h, s, d, s + d)
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * h)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=True)}
    for pf, ahead in VARIANTS:
        mod = variant(pf, ahead)
        run = mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**dataclasses.asdict(cfg)), store_lse=True)
        fns[f"pf{pf} ahead {ahead}"] = passing(run, sets, 1, True, log, f"pf{pf} ahead {ahead}")
    fns.update(peers(sets, True))
    case = f"B{b} H{h} S{s} D{d} causal"
    return case, f"{label(cfg)}; auto's time / this", 4 * b * h * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    cells = [tuple(int(x) for x in c.split(",")) for c in os.environ.get("PF_CELLS", "32,16,512,128").split()]
    run_cells("prefetch", cells, cell)
