"""Run 2: where a persistent CTA's time per work item goes (the Gluon WS kernel, auto's
configs). Run 1's q_ahead read 0.97-1.00, so Q's load latency is not the ~4.5-5 us per item
that the bench's S-scaling implies. This traces it instead.

A copy of gluon_fwd.py (made here by text edits, loaded as a module of its own) has each
consumer warpgroup write %globaltimer_lo at seven points per item into a buffer placed
after the LSE: e0 item taken, e1 Q landed, e2 S_0 landed, e3 tile 0's softmax done (loop
start), e4 loop done, e5 last P @ V landed, e6 epilogue issued; e7 holds the item's key
tile count. Probe only: the timer reads and stores add a few instructions per item.
    PYTHONPATH=$PWD/src python <this script>"""
import importlib.util
import json
import os
import statistics
import sys

import torch

from flashcore import dispatch
from flashcore.kernels import gluon_fwd as gf

OUT = os.environ.get("OUT", ".")
MAX_LAPS = 96
EVENTS = 8


def trace_module():
    src = open(gf.__file__).read()

    def rep(a, b):
        nonlocal src
        assert src.count(a) == 1, a
        src = src.replace(a, b)

    stamp = '''

@gluon.jit
def _stamp(tr, e: gl.constexpr, value=None):
    lay: gl.constexpr = gl.BlockedLayout([1], [32], [4], [0])
    z = gl.full([1], 0, gl.int32, lay)
    if value is None:
        t = gl.inline_asm_elementwise("mov.u32 $0, %globaltimer_lo;", "=r,r", [z], dtype=gl.int32,
                                      is_pure=False, pack=1)
    else:
        t = z + value
    gl.store(tr + e + gl.arange(0, 1, lay), t.to(gl.float32, bitcast=True))


@gluon.jit
def _attend('''
    rep("\n\n@gluon.jit\ndef _attend(", stamp)
    rep("""LEAN: gl.constexpr = True,
            PIECE: gl.constexpr = False):""", """LEAN: gl.constexpr = True,
            PIECE: gl.constexpr = False, tr=None):""")
    rep("    mbarrier.wait(q_bar, q_phase)\n", "    mbarrier.wait(q_bar, q_phase)\n    if tr is not None:\n        _stamp(tr, 1)\n")
    rep("    s = warpgroup_mma_wait(0, deps=[s_tok])\n    if NUM_WG == 3",
        "    s = warpgroup_mma_wait(0, deps=[s_tok])\n    if tr is not None:\n        _stamp(tr, 2)\n    if NUM_WG == 3")
    rep("    p = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)\n",
        "    p = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)\n    if tr is not None:\n        _stamp(tr, 3)\n")
    rep("    if PERSISTENT:\n        mbarrier.arrive(q_empty)  # every S GEMM",
        "    if tr is not None:\n        _stamp(tr, 4)\n    if PERSISTENT:\n        mbarrier.arrive(q_empty)  # every S GEMM")
    rep("    o = warpgroup_mma_wait(0, deps=[o_tok])\n    if WS:",
        "    o = warpgroup_mma_wait(0, deps=[o_tok])\n    if tr is not None:\n        _stamp(tr, 5)\n    if WS:")
    # The stamp buffer sits after the LSE; each (CTA, lap, warpgroup) owns eight words.
    stamps = """    tr = LSE + sched[5] * sched[2] + ((gl.program_id(0) * MAX_LAPS + gl.minimum(lap, MAX_LAPS - 1)) * NUM_WG + WG) * 8
    _stamp(tr, 0)
    _stamp(tr, 7, n_tiles)
"""
    if "_q_slot(lap, NUM_WG, Q_AHEAD)" in src:  # run 2's tree (6ae02a9)
        anchor = "    q_base, q_phase = _q_slot(lap, NUM_WG, Q_AHEAD)\n"
        rep(anchor, anchor + stamps)
    else:  # the kernel without q_ahead (c3b61d4 on)
        anchor = "    o, l_i, m_i = _attend(q_smem.index(WG), q_bars.index(WG), lap & 1, q_empty.index(WG), k_smem, v_smem,"
        rep(anchor, stamps + anchor)
    rep("""                          t0, 1, 0, True, STREAM_K)
    if _tight_registers""", """                          t0, 1, 0, True, STREAM_K, tr)
    if _tight_registers""")
    rep("""                   4, BLOCK_N, HEAD_DIM, PERSISTENT)
    return n_tiles""", """                   4, BLOCK_N, HEAD_DIM, PERSISTENT)
    _stamp(tr, 6)
    return n_tiles""")
    rep("MAX_FREE = gl.constexpr(2)", f"MAX_FREE = gl.constexpr(2)\nMAX_LAPS = gl.constexpr({MAX_LAPS})")
    path = os.path.join(OUT, "trace_gluon_fwd.py")
    open(path, "w").write(src)
    spec = importlib.util.spec_from_file_location("flashcore.kernels.gluon_fwd_trace", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def wrap(d):
    """Differences of 32-bit ns stamps, wrap-safe."""
    return (d + 2**31) % 2**32 - 2**31


def trace(mod, b, h, s, d, causal):
    cfg = dispatch.kernel_config("gluon", 90, torch.bfloat16, d, causal, s, s, b * h)
    cfg = mod.Config(**cfg.as_dict())
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    grid = mod.ws_grid(cfg, s, b * h, 0)
    nwg = cfg.block_m // 64
    bhs = b * h * s
    buf = torch.zeros(bhs + grid * MAX_LAPS * nwg * EVENTS, device="cuda")
    lse = buf[:bhs].view(b, h, s)
    run = mod.prepare(q, k, v, causal, d ** -0.5, cfg)
    for _ in range(5):
        buf[bhs:].zero_()
        run(q, k, v, None, lse)
    torch.cuda.synchronize()
    a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    buf[bhs:].zero_()
    a.record()
    run(q, k, v, None, lse)
    e.record()
    torch.cuda.synchronize()
    us = a.elapsed_time(e) * 1e3
    raw = buf[bhs:].view(torch.int32).view(grid, MAX_LAPS, nwg, EVENTS).cpu().long()
    return cfg, us, raw


def summarize(raw):
    grid, laps, nwg, _ = raw.shape
    rows = []  # per (cta, lap, wg): dict of phases in ns
    gaps = []
    for c in range(grid):
        prev_end = None
        for lap in range(laps):
            r = raw[c, lap, 0]
            if int(r[7]) == 0:
                break
            for w in range(nwg):
                ev = raw[c, lap, w]
                n = int(ev[7])
                ph = [int(wrap(ev[i + 1] - ev[i])) for i in range(6)]
                rows.append(dict(n=n, q=ph[0], s0=ph[1], sm0=ph[2], loop=ph[3], pv=ph[4], epi=ph[5],
                                 total=int(wrap(ev[6] - ev[0]))))
            if prev_end is not None:
                gaps.append(int(wrap(raw[c, lap, 0, 0] - prev_end)))
            prev_end = raw[c, lap, 0, 6]
    return rows, gaps


def med(x):
    return statistics.median(x) if x else float("nan")


CELLS = [(4, 16, 4096, 128, True), (1, 16, 16384, 128, True), (4, 16, 4096, 128, False),
         (8, 16, 2048, 128, True), (8, 32, 2048, 64, False)]
if __name__ == "__main__":
    mod = trace_module()
    report = []
    for cell in CELLS:
        cfg, us, raw = trace(mod, *cell)
        rows, gaps = summarize(raw)
        per_tile = med([r["loop"] / (r["n"] - 1) for r in rows if r["n"] > 4])
        over = med([r["total"] - r["n"] * per_tile for r in rows])
        line = (f"B{cell[0]} H{cell[1]} S{cell[2]} D{cell[3]} {'causal' if cell[4] else 'full'} {us:.0f} us, "
                f"{len(rows)} (item, wg): loop/tile {per_tile:.0f} ns | q {med([r['q'] for r in rows]):.0f} "
                f"s0 {med([r['s0'] for r in rows]):.0f} sm0 {med([r['sm0'] for r in rows]):.0f} "
                f"pv {med([r['pv'] for r in rows]):.0f} epi {med([r['epi'] for r in rows]):.0f} "
                f"take {med(gaps):.0f} | item - n*tile {over:.0f} ns")
        print(line, flush=True)
        report.append(dict(cell=cell, config=cfg.as_dict(), us=us, line=line, rows=rows, gaps=gaps))
    json.dump(report, open(os.path.join(OUT, "item_trace.json"), "w"))
