"""Phase stamps of the seed's B=2 configs (cute_fwd.build(..., trace=True)): the shipped two
warpgroups of two 128-key tiles against four warpgroups of one tile and 64-key tiles. With
wgs=4 each warpgroup's "first K landed" is its one tile's K, so the stamps show when each tile
of a CTA lands and when its chain ends. The method is ../../2026-11-25-h100-multicast/scripts/
trace.py's: a CUDA graph of 50 calls over 48 input sets (past L2) with PDL; the last call's
stamps, medians over CTAs, ns since the call's first CTA entry."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, replay_us  # noqa: E402
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from flashcore.kernels.launch import pdl_on  # noqa: E402

OUT = os.environ.get("OUT", ".")
NSETS, CALLS = 48, 50
C = cf.Config
CELLS = [(2, False, C(128, 1, 4, wgs=2, interleave=True)), (2, False, C(128, 1, 4, wgs=4)),
         (2, False, C(64, 1, 8, wgs=4, interleave=True)),
         (2, True, C(128, 1, 4, wgs=2)), (2, True, C(128, 1, 4, wgs=4))]
if os.environ.get("TRACE_SET") == "prefetch":  # call 60: L2 prefetch before the PDL wait
    CELLS = [(2, False, C(128, 1, 4, wgs=2, interleave=True)), (2, False, C(128, 1, 4, wgs=2, interleave=True, prefetch=True)),
             (2, True, C(128, 1, 4, wgs=4, prefetch=True)), (1, False, C(128, 2, 2, prefetch=True))]
if os.environ.get("TRACE_SET") == "merge":  # call 36: the partials folded in as they come
    CELLS = [(2, False, C(128, 1, 4, wgs=2, interleave=True)), (2, False, C(128, 1, 4, wgs=4)),
             (2, True, C(128, 1, 4, wgs=4))]


def medians(records, wg):
    line = []
    for event in cf.TRACE_EVENTS:
        v = sorted(r["ns"][event] for r in records if r["wg"] == wg and r["ns"][event] is not None)
        line.append(f"{v[len(v) // 2]:5.0f}" if v else "    -")
    return " ".join(line)


def main():
    log = open(os.path.join(OUT, f"trace{os.environ.get('TRACE_SET', '')}.log"), "w")

    def say(s):
        print(s, flush=True); log.write(s + "\n"); log.flush()

    say("events: " + ", ".join(cf.TRACE_EVENTS) + "; ns since the call's first CTA entry, median over CTAs")
    result = []
    for b, causal, cfg in CELLS:
        fn = cf.build("float16", 64, cfg, causal, pdl_on(), trace=True)
        g = torch.Generator(device="cuda").manual_seed(b)
        sets = [tuple(torch.randn(b, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
                for _ in range(NSETS)]
        outs = [torch.empty_like(sets[0][0]) for _ in range(2)]
        lses = [torch.empty(cf.trace_words(cfg, b * 8, 512), device="cuda") for _ in range(2)]

        def call(i):
            fn(*sets[i % NSETS], outs[i % 2], lses[i % 2].view(b, 8, -1), 0.125 * cf.LOG2E, 0)

        gr = graph(call, CALLS)
        times = [replay_us(gr, CALLS) for _ in range(20)]
        for t in lses:
            t.fill_(float("nan"))
        gr.replay(); torch.cuda.synchronize()
        words49, words48 = lses[1].tolist(), lses[0].tolist()
        origin = cf.trace_origin(words49)
        last, prev = cf.decode_trace(words49, cfg, origin), cf.decode_trace(words48, cfg, origin)
        say(f"B{b} {'causal' if causal else 'full'} {cfg}: {median(times):.2f} us per call in the graph "
            f"[{min(times):.2f}, {max(times):.2f}]")
        ends = [r["ns"]["exit"] for r in prev if r["ns"]["exit"] is not None]
        say(f"  previous call: last exit {max(ends):.0f}")
        for wg in range(cfg.wgs):
            say(f"  wg {wg}: {medians(last, wg)}")
        result.append(dict(cell=f"B{b} {'causal' if causal else 'full'} {cfg}", us=times, chain=last, previous=prev))
    json.dump(dict(cells=result, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, f"trace{os.environ.get('TRACE_SET', '')}.json"), "w"))


main()
