"""Where the seed's ~5 us go: phase timestamps of every CTA (thread 0) of the shipped cute
configs, with patches/trace.patch applied (FLASHCORE_CUTE_TRACE=1 writes %globaltimer and
%clock at nine points into the LSE buffer instead of the LSE).

Each cell runs as the bench does: a CUDA graph of back-to-back calls over 48 input sets (past
L2), PDL between calls; calls alternate between two LSE buffers, so the last two calls' traces
show one call's start against its predecessor's end. Also one isolated launch (no
predecessor) per cell. Events: 0 entry, 1 PDL wait released, 2 Q landed, 3 first K tile
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
CELLS = [(1, False, C(128, 2, 2)), (1, True, C(128, 2, 2, exclusive=True)),
         (2, False, C(128, 1, 4, wgs=2)), (2, True, C(128, 1, 4, wgs=2))]
WRAP = 1 << 24


def rel(x, ref):
    """x - ref on the 24-bit globaltimer, as signed ns."""
    d = (x - ref) % WRAP
    return d - WRAP if d > WRAP // 2 else d


def parse(buf, ctas):
    flat = buf.flatten()[:ctas * 20].view(ctas, 20).double().cpu()
    gt, clk = flat[:, 0:18:2], flat[:, 1:18:2]
    return gt, clk, flat[:, 18], flat[:, 19]


def stats(vals):
    v = sorted(x for x in vals if x == x)
    if not v:
        return "   -   "
    return f"{v[len(v) // 2]:6.0f} [{v[0]:5.0f},{v[-1]:5.0f}]"


def summarize(say, name, gt, clk, ref, rank0):
    """Per event, median [min, max] over CTAs of ns since ref (and for rank-0 CTAs only)."""
    say(f"  {name}: event ns since ref, median [min, max] over CTAs (rank-0 CTAs in the second column)")
    rows = []
    for e in range(EVENTS):
        allv = [rel(gt[i, e].item(), ref) if gt[i, e] == gt[i, e] else float("nan") for i in range(gt.shape[0])]
        r0 = [a for a, r in zip(allv, rank0) if r]
        say(f"    e{e}: {stats(allv)} | {stats(r0)}")
        rows.append(dict(all=allv))
    return rows


def main():
    log = open(os.path.join(OUT, "trace.log"), "w")

    def say(s):
        print(s, flush=True); log.write(s + "\n"); log.flush()

    result = []
    for b, causal, cfg in CELLS:
        g = torch.Generator(device="cuda").manual_seed(b)
        sets = [tuple(torch.randn(b, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
                for _ in range(NSETS)]
        outs = [torch.empty_like(sets[0][0]) for _ in range(2)]
        lses = [torch.empty(b, 8, 512, device="cuda") for _ in range(2)]
        ctas = cfg.split * b * 8 * 8

        def fn(i):
            cf.forward(*sets[i % NSETS], causal, 0.125, cfg, outs[i % 2], lses[i % 2])

        gr = graph(fn, CALLS)
        times = [replay_us(gr, CALLS) for _ in range(20)]
        for t in lses:
            t.fill_(float("nan"))
        gr.replay(); torch.cuda.synchronize()
        prev, last = parse(lses[0], ctas), parse(lses[1], ctas)  # calls 48 and 49
        ref = min(last[0][:, 0].tolist())
        cell = f"B{b} {'causal' if causal else 'full'} {cfg}"
        say(f"{cell}: {median(times):.2f} us per call in the graph [{min(times):.2f}, {max(times):.2f}]")
        rank0 = [(i % cfg.split) == 0 for i in range(ctas)]
        prev_end = max(rel(x, ref) for x in prev[0][:, 8].tolist() if x == x)
        prev_last_pv = max(rel(x, ref) for x in prev[0][:, 5].tolist() if x == x)
        say(f"  previous call: last P@V done {prev_last_pv:.0f} ns, last exit {prev_end:.0f} ns (ref = this call's first CTA entry)")
        rows = summarize(say, "call 49 (PDL chain)", last[0], last[1], ref, rank0)
        cyc = [(c8 - c0) / max(rel(g8, g0), 1) for (g0, g8), (c0, c8) in
               zip(last[0][:, [0, 8]].tolist(), last[1][:, [0, 8]].tolist()) if g8 == g8]
        say(f"  clock / globaltimer over entry..exit: {median(cyc):.3f} GHz; distinct SMs: {len(set(last[2].tolist()))}")
        gts = sorted(set(int(x) for x in last[0].flatten().tolist() if x == x))
        steps = sorted(set(b_ - a_ for a_, b_ in zip(gts, gts[1:])))[:5]
        say(f"  globaltimer: {len(gts)} distinct stamps, smallest steps {steps}")
        # One launch with an idle GPU before it.
        for t in lses:
            t.fill_(float("nan"))
        torch.cuda.synchronize()
        fn(0); torch.cuda.synchronize()
        alone = parse(lses[0], ctas)
        aref = min(alone[0][:, 0].tolist())
        arows = summarize(say, "isolated launch", alone[0], alone[1], aref, rank0)
        result.append(dict(cell=cell, us=times, prev_end=prev_end, prev_last_pv=prev_last_pv, chain=rows,
                           isolated=arows, sm=last[2].tolist(), m_block=last[3].tolist(),
                           clk=last[1].tolist()))
    json.dump(dict(cells=result, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, "trace.json"), "w"))


main()
