"""Where the seed's ~5 us go: phase timestamps of every CTA and warpgroup of the cute kernel's
seed configs, from its diagnostic build (``cute_fwd.build(..., trace=True)``: %globaltimer at
the nine ``cute_fwd.TRACE_EVENTS``, written into the LSE buffer instead of the LSE).

Runs 2 and 4 used this script's earlier form with patches/trace.patch (see meta.json for their
shas); the build option replaced the patch afterwards.

Each cell runs as the bench does: a CUDA graph of back-to-back calls over 48 input sets (past
L2), PDL between calls; calls alternate between two LSE buffers, so the last two calls' traces
show one call's start against its predecessor's end. Also one isolated launch (no
predecessor) per cell. TRACE_SET=v30 picks the configs of kernel log v30."""
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
CELLS = [(1, False, C(128, 2, 2)), (1, True, C(128, 2, 2, exclusive=True, halves=True)),
         (2, False, C(128, 1, 4, wgs=2, interleave=True)), (2, True, C(128, 1, 4, wgs=2))]
if os.environ.get("TRACE_SET") == "v30":
    CELLS = [(1, False, C(128, 2, 2)), (1, True, C(128, 2, 2, exclusive=True)),
             (2, False, C(128, 1, 4, wgs=2)), (2, False, C(128, 1, 4, wgs=2, interleave=True)),
             (2, True, C(128, 1, 4, wgs=2, interleave=True))]


def medians(records, rank, wg, ref=0.0):
    line = []
    for event in cf.TRACE_EVENTS:
        v = sorted(r["ns"][event] - ref for r in records
                   if r["rank"] == rank and r["wg"] == wg and r["ns"][event] is not None)
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
        lses = [torch.empty(b, 8, 512, device="cuda") for _ in range(2)]
        assert cf.trace_words(cfg, b * 8, 512) <= lses[0].numel()

        def call(i):
            fn(*sets[i % NSETS], outs[i % 2], lses[i % 2], 0.125 * cf.LOG2E, 0)

        gr = graph(call, CALLS)
        times = [replay_us(gr, CALLS) for _ in range(20)]
        for t in lses:
            t.fill_(float("nan"))
        gr.replay(); torch.cuda.synchronize()
        words49, words48 = lses[1].flatten().tolist(), lses[0].flatten().tolist()
        origin = cf.trace_origin(words49)
        last, prev = cf.decode_trace(words49, cfg, origin), cf.decode_trace(words48, cfg, origin)
        ref = 0.0
        say(f"B{b} {'causal' if causal else 'full'} {cfg}: {median(times):.2f} us per call in the graph "
            f"[{min(times):.2f}, {max(times):.2f}]")
        ends = [r["ns"]["exit"] - ref for r in prev if r["ns"]["exit"] is not None]
        say(f"  previous call: last exit {max(ends):.0f}")
        for rank in range(cfg.split):
            for wg in range(cfg.wgs):
                say(f"  chain    rank {rank} wg {wg}: {medians(last, rank, wg, ref)}")
        for t in lses:
            t.fill_(float("nan"))
        torch.cuda.synchronize()
        call(0); torch.cuda.synchronize()
        alone = cf.decode_trace(lses[0].flatten().tolist(), cfg)
        for rank in range(cfg.split):
            for wg in range(cfg.wgs):
                say(f"  isolated rank {rank} wg {wg}: {medians(alone, rank, wg)}")
        result.append(dict(cell=f"B{b} {'causal' if causal else 'full'} {cfg}", us=times, chain=last,
                           previous=prev, isolated=alone))
    json.dump(dict(cells=result, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, f"trace{os.environ.get('TRACE_SET', '')}.json"), "w"))


main()
