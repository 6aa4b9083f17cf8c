"""Where the seed's ~5 us go: phase timestamps of every CTA (thread 0) of the shipped cute
configs, with patches/trace.patch applied (FLASHCORE_CUTE_TRACE=1 writes %globaltimer and
%clock at nine points into the LSE buffer instead of the LSE).

Each cell runs as the bench does: a CUDA graph of back-to-back calls over 48 input sets (past
L2), PDL between calls; calls alternate between two LSE buffers, so the last two calls' traces
show one call's start against its predecessor's end. Also one isolated launch (no
predecessor) per cell. Each warpgroup's first thread stamps. Events: 0 entry, 1 PDL wait released, 2 Q landed, 3 first K tile
landed, 4 last softmax done, 5 last P@V done, 6 partials merged (rank 0) / sent (rank 1),
7 O staged in shared memory, 8 TMA store read out (exit)."""
import json
import os
import sys

os.environ["FLASHCORE_CUTE_TRACE"] = "1"
import torch  # noqa: E402

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, replay_us  # noqa: E402
from flashcore.kernels import cute_fwd as cf  # noqa: E402

OUT = os.environ.get("OUT", ".")
NSETS, CALLS, EVENTS = 48, 50, 9
C = cf.Config
# Run 2 traced the shipped configs; run 4 the bulk merge and interleaved loads (v30).
CELLS = [(1, False, C(128, 2, 2)), (1, True, C(128, 2, 2, exclusive=True)),
         (2, False, C(128, 1, 4, wgs=2)), (2, True, C(128, 1, 4, wgs=2))]
if os.environ.get("TRACE_SET") == "v30":
    CELLS = [(1, False, C(128, 2, 2, bulk_merge=True)), (1, True, C(128, 2, 2, exclusive=True, bulk_merge=True)),
             (2, False, C(128, 1, 4, wgs=2)), (2, False, C(128, 1, 4, wgs=2, interleave=True)),
             (2, True, C(128, 1, 4, wgs=2, interleave=True))]
WRAP = 1 << 24


def rel(x, ref):
    """x - ref on the 24-bit globaltimer, as signed ns."""
    d = (x - ref) % WRAP
    return d - WRAP if d > WRAP // 2 else d


def stamps(buf, slots, ref=None):
    """Per slot (CTA x warpgroup), the nine events in ns since ref (default: the first entry)."""
    flat = buf.flatten()[:slots * 20].view(slots, 20).double().cpu().tolist()
    gt = [row[0:18:2] for row in flat]
    if ref is None:
        ref = min(r[0] for r in gt if r[0] == r[0])
    return [[rel(x, ref) if x == x else float("nan") for x in r] for r in gt], ref, flat


def medians(rows, pick):
    out = []
    for e in range(EVENTS):
        v = sorted(r[e] for i, r in enumerate(rows) if pick(i) and r[e] == r[e])
        out.append(f"{v[len(v) // 2]:5.0f}" if v else "    -")
    return " ".join(out)


def main():
    log = open(os.path.join(OUT, f"trace{os.environ.get('TRACE_SET', '')}.log"), "w")

    def say(s):
        print(s, flush=True); log.write(s + "\n"); log.flush()

    say("events: 0 entry, 1 PDL wait released, 2 Q landed, 3 first K landed, 4 last softmax done, "
        "5 last P@V done, 6 merged (rank 0 wg 0) / partial handed over, 7 O staged, 8 exit; "
        "ns since the call's first CTA entry, median over CTAs")
    result = []
    for b, causal, cfg in CELLS:
        g = torch.Generator(device="cuda").manual_seed(b)
        sets = [tuple(torch.randn(b, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
                for _ in range(NSETS)]
        outs = [torch.empty_like(sets[0][0]) for _ in range(2)]
        lses = [torch.empty(b, 8, 512, device="cuda") for _ in range(2)]
        slots = cfg.split * b * 8 * 8 * cfg.wgs

        def fn(i):
            cf.forward(*sets[i % NSETS], causal, 0.125, cfg, outs[i % 2], lses[i % 2])

        gr = graph(fn, CALLS)
        times = [replay_us(gr, CALLS) for _ in range(20)]
        for t in lses:
            t.fill_(float("nan"))
        gr.replay(); torch.cuda.synchronize()
        last, ref, raw = stamps(lses[1], slots)  # call 49
        prev, _, _ = stamps(lses[0], slots, ref)  # call 48
        say(f"B{b} {'causal' if causal else 'full'} {cfg}: {median(times):.2f} us per call in the graph "
            f"[{min(times):.2f}, {max(times):.2f}]")
        say(f"  previous call: last P@V done {max(r[5] for r in prev if r[5] == r[5]):.0f}, "
            f"last exit {max(r[8] for r in prev if r[8] == r[8]):.0f}")
        for rank in range(cfg.split):
            for wg in range(cfg.wgs):
                pick = (lambda i, rank=rank, wg=wg: i % cfg.wgs == wg and (i // cfg.wgs) % cfg.split == rank)
                say(f"  chain    rank {rank} wg {wg}: {medians(last, pick)}")
        for t in lses:
            t.fill_(float("nan"))
        torch.cuda.synchronize()
        fn(0); torch.cuda.synchronize()
        alone, _, _ = stamps(lses[0], slots)
        for rank in range(cfg.split):
            for wg in range(cfg.wgs):
                pick = (lambda i, rank=rank, wg=wg: i % cfg.wgs == wg and (i // cfg.wgs) % cfg.split == rank)
                say(f"  isolated rank {rank} wg {wg}: {medians(alone, pick)}")
        result.append(dict(cell=f"B{b} {'causal' if causal else 'full'} {cfg}", us=times, chain=last, previous=prev,
                           isolated=alone, sm=[r[18] for r in raw], m_block=[r[19] for r in raw]))
    json.dump(dict(cells=result, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, f"trace{os.environ.get('TRACE_SET', '')}.json"), "w"))


main()
