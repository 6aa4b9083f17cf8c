"""Run 9: run 2's per-item trace again, with absolute stamps, inside a CUDA graph.

Run 2 summed ~404 us of item time per CTA at D=128 S=4k causal against 476-484 us per call
in graph replay. Either the clocks are lower under sustained replay (run 2 timed one launch
after idle; epilogue run 3 saw 1965 -> 1815 MHz over a bench), or CTAs idle before their
first item or after their last. Here every call of a 20-call graph writes its own trace
region (``item_trace.trace_module``'s stamps), and the summary takes, per call:
span = last epilogue - first item start over all CTAs; per CTA the lag to its first item,
its busy time (sum of item times and gaps) and its idle tail; plus the replay's time per
call from CUDA events. Medians over the graph's last 10 calls.
    PYTHONPATH=$PWD/src python <this script>"""
import json
import os
import statistics
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from item_trace import EVENTS, MAX_LAPS, OUT, trace_module, wrap  # noqa: E402

from flashcore import dispatch  # noqa: E402

CALLS = 20


def run_cell(mod, b, h, s, d, causal):
    cfg = mod.Config(**dispatch.kernel_config("gluon", 90, torch.bfloat16, d, causal, s, s, b * h).as_dict())
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    grid = mod.ws_grid(cfg, s, b * h, 0)
    nwg = cfg.block_m // 64
    bhs = b * h * s
    per_call = bhs + grid * MAX_LAPS * nwg * EVENTS
    buf = torch.zeros(CALLS, per_call, device="cuda")
    lses = [buf[i, :bhs].view(b, h, s) for i in range(CALLS)]
    run = mod.prepare(q, k, v, causal, d ** -0.5, cfg)
    for i in range(3):
        run(q, k, v, None, lses[i])
    torch.cuda.synchronize()
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g, stream=side):
        for i in range(CALLS):
            run(q, k, v, None, lses[i])
    a, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    for _ in range(3):
        buf[:, bhs:].zero_()
        a.record()
        g.replay()
        e.record()
        e.synchronize()
    us_per_call = a.elapsed_time(e) * 1e3 / CALLS
    raw = buf[:, bhs:].contiguous().view(torch.int32).view(CALLS, grid, MAX_LAPS, nwg, EVENTS).cpu().long()
    calls = []
    for i in range(CALLS // 2, CALLS):
        r = raw[i]
        base = int(r[0, 0, 0, 0])
        starts, ends, busy = [], [], []
        for c in range(grid):
            laps = [lap for lap in range(MAX_LAPS) if int(r[c, lap, 0, 7]) != 0]
            if not laps:
                continue
            t0 = int(wrap(r[c, laps[0], 0, 0] - base))
            t1 = max(int(wrap(r[c, laps[-1], w, 6] - base)) for w in range(nwg))
            starts.append(t0)
            ends.append(t1)
            busy.append(t1 - t0)
        first, last = min(starts), max(ends)
        calls.append(dict(span=last - first, lag=statistics.mean(x - first for x in starts),
                          busy=statistics.mean(busy), tail=statistics.mean(last - x for x in ends),
                          tail_max=max(last - x for x in ends)))
    med = {key: statistics.median(c[key] for c in calls) / 1e3 for key in calls[0]}
    return cfg, us_per_call, med


CELLS = [(4, 16, 4096, 128, True), (4, 16, 4096, 128, False), (1, 16, 16384, 128, True)]
if __name__ == "__main__":
    mod = trace_module()
    report = []
    for cell in CELLS:
        cfg, us, med = run_cell(mod, *cell)
        line = (f"B{cell[0]} H{cell[1]} S{cell[2]} D{cell[3]} {'causal' if cell[4] else 'full'}: replay {us:.1f} us/call"
                f" | span {med['span']:.1f} | per CTA: lag to first item {med['lag']:.1f}, busy {med['busy']:.1f},"
                f" idle tail {med['tail']:.1f} (max {med['tail_max']:.1f}) us")
        print(line, flush=True)
        report.append(dict(cell=cell, config=cfg.as_dict(), us_per_call=us, medians=med, line=line))
    json.dump(report, open(os.path.join(OUT, "graph_trace.json"), "w"), indent=1)
