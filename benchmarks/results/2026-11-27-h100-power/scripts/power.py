"""Does a config's power draw decide its speed under the H100's 700 W cap?

The fp16 bench (2026-11-27-h100-odd-cells/5-bench) ran flashcore's D=64 S=4k causal cell
(stage 1: 64-row blocks, K/V re-read from L2 once per 64 rows) 8.7% slower than bf16 at a 7%
lower SM clock, where FA4 (192-row tiles) lost 2.6% at a 2.5% lower clock. If the config's power
(L2 and shared-memory traffic per FLOP) sets the clock it settles at, then paired rounds of
30 ms, whose providers share one clock set by their mix, cannot see a config that draws less,
while a long run of one config can.

Each cell times auto and candidate configs two ways, with nvidia-smi sampling the SM clock and
instantaneous power (flashcore.bench.clocks) in every window: SHORT, paired CUDA-graph rounds of
30 ms (11 rounds, order reversed every other round), and LONG, each provider alone for
LONG_MS (its 30 ms graph replayed back to back; the time per call is read over the second half
of the window, once the clock has settled), in 5 alternating rounds. Every candidate is first
checked against the fp64 reference (odd-cells sweep's ``checked``: fresh independent Q, K, V,
O and LSE NaN-poisoned before a rerun that must give the same bits).
    PYTHONPATH=$PWD/src SET=causal DTYPE=fp16 python <this script>"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
import sweep as base  # noqa: E402
from cells import label  # noqa: E402
from timing import median, replay_us  # noqa: E402

from flashcore.bench import clocks  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
DTYPE = base.DTYPE
ROUNDS, LONG_ROUNDS, LONG_MS = 11, 5, float(os.environ.get("LONG_MS", 800))
W3, W3_S2, W2_PP, STAGE1 = base.W3, base.W3_S2, base.W2_PP, base.STAGE1
W3_64_S3 = gf.Config(192, 64, 12, 3, True, True, True)
SETS = {
    # The standard preset's D=64 causal cells around the stage-1 / three-warpgroup boundary
    # (S=8k runs W3), and D=128 S=4k causal (auto: 128x128 persistent, no turns).
    "causal": {
        (4, 32, 4096, 64, True): [W3, W3_S2], (8, 32, 2048, 64, True): [W3],
        (2, 32, 8192, 64, True): [STAGE1], (4, 16, 4096, 128, True): [W2_PP],
    },
    # Run 8: the other stage-1 cells where a bench (run 7) or earlier short rounds read a
    # lower-traffic config close: D=128 causal S=1k (128x128 ping-pong persistent 1.048x in the
    # bench), the D=32 build's causal S=2k / 4k (three warpgroups 0.877 / 0.911x in short rounds).
    "stage1": {
        (16, 16, 1024, 128, True): [W2_PP], (8, 64, 2048, 32, True): [W3], (4, 64, 4096, 32, True): [W3],
    },
    # Run 10: run 9's bench read auto 4-5% behind the same config launched through ``prepare`` at
    # D=80 S=1k causal (O in two parts): auto against ``prepare`` with auto's config.
    "api80": {(32, 16, 1024, 80, True): [base.PREPARED]},
    # Run 13: three warpgroups on 192x64 tiles at D=128 (a third fewer K/V passes through L2 than
    # 128-row items; v9 read them 2-4% behind on short rounds, before v10-v47).
    "d128-192": {(4, 16, 4096, 128, False): [base.W3_64, W3_64_S3], (2, 16, 8192, 128, False): [base.W3_64],
                 (4, 16, 4096, 128, True): [base.W3_64, W3_64_S3]},
    # Run 12: energy a call against FA4 where it is the best peer (PEERS=fa4,cudnn).
    "peers": {(4, 16, 4096, 128, True): [], (2, 16, 8192, 128, True): [], (4, 32, 4096, 64, True): []},
}


def turns(rounds, n):
    """Provider indices in turn, reversed every other round (ABBA)."""
    for r in range(rounds):
        yield from (range(n) if r % 2 == 0 else reversed(range(n)))


def short_window(g, calls):
    """Per-call us of one replay, and its host window (replay_us synchronises)."""
    t0 = clocks.now()
    return replay_us(g, calls), (t0, clocks.now())


def long_window(g, calls):
    """Per-call us over the second half of LONG_MS of back-to-back replays, and that half's host window."""
    reps = max(2, int(LONG_MS / 30.0))
    for _ in range(reps // 2):
        g.replay()
    torch.cuda.synchronize()
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    t0 = clocks.now()
    a.record()
    for _ in range(reps - reps // 2):
        g.replay()
    b.record()
    b.synchronize()
    return a.elapsed_time(b) * 1e3 / (calls * (reps - reps // 2)), (t0, clocks.now())


def measure(graphs):
    """(times, host windows) per provider: SHORT paired rounds, then LONG alone."""
    out = []
    for window, rounds in ((short_window, ROUNDS), (long_window, LONG_ROUNDS)):
        times, windows = [[] for _ in graphs], [[] for _ in graphs]
        for i in turns(rounds, len(graphs)):
            us, w = window(*graphs[i])
            times[i].append(us)
            windows[i].append(w)
        out += [times, windows]
    return out


def main():
    sampler = clocks.ClockSampler(os.environ.get("GPU", "0"))
    print("sampler:", sampler.start(), flush=True)
    rows, tag = [], f"{os.environ.get('SET', 'causal')}-{str(DTYPE)[6:]}"
    log = open(os.path.join(OUT, f"power-{tag}.log"), "w")
    for (b, h, s, d, causal), cands in SETS[os.environ.get("SET", "causal")].items():
        case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'} {str(DTYPE)[6:]}"
        auto_cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
        log.write(f"{case} auto: {label(auto_cfg)}\n")
        sets, names, graphs = base.cell_graphs(b, h, s, d, causal, cands, case, log)
        short, short_w, long, long_w = measure(graphs)
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        row, line = dict(case=case, auto=label(auto_cfg), providers=[]), f"{case} (auto: {label(auto_cfg)})\n"
        for i, name in enumerate(names):
            rs = sorted(a / x for a, x in zip(short[0], short[i]))
            rl = sorted(a / x for a, x in zip(long[0], long[i]))
            cs, cl = sampler.window(short_w[i]), sampler.window(long_w[i])
            p = dict(name=name, short_us=median(short[i]), long_us=median(long[i]), short_auto_over=median(rs),
                     long_auto_over=median(rl), long_lo=rl[0], long_hi=rl[-1], short_clock=cs, long_clock=cl,
                     short=short[i], long=long[i])
            p["long_mj"] = (cl["power_w"] or 0) * p["long_us"] * 1e-3
            row["providers"].append(p)
            line += (f"   {name:26s} short {p['short_us']:7.1f} us {p['short_auto_over']:.3f}"
                     f" {cs['sm_mhz'] or 0:5.0f} MHz {cs['power_w'] or 0:4.0f} W | long {p['long_us']:7.1f} us"
                     f" {flops / p['long_us'] / 1e6:4.0f} TF {p['long_auto_over']:.3f} [{rl[0]:.3f}, {rl[-1]:.3f}]"
                     f" {cl['sm_mhz'] or 0:5.0f} MHz {cl['power_w'] or 0:4.0f} W {p['long_mj']:6.1f} mJ/call\n")
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del graphs, sets
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, rounds=ROUNDS, long_rounds=LONG_ROUNDS, long_ms=LONG_MS, dtype=str(DTYPE),
                   device=torch.cuda.get_device_name(), torch=torch.__version__, fa4=base.FA4 is not None),
              open(os.path.join(OUT, f"power-{tag}.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
