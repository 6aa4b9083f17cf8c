"""Ping-pong turns on the D=128 build's persistent causal rows from 2k keys (auto: 128x128,
two consumer warpgroups, no turns; v46 read turns level in 30 ms rounds). v48's run 2 read
turns 1.014 / 1.001x alone at S=4k (bf16 / fp16), and call 5's tuner confirmed 1.007x.
Here each cell runs auto's config and the same with turns through ``prepare``, each checked
against the fp64 reference (chunk.py's check: fresh independent Q, K, V, O and LSE
NaN-poisoned before a rerun that must give the same bits; one KV group under GQA), in
power.py's two windows. Ratio: auto's time over this one's (> 1: turns faster).
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import dataclasses
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
from chunk import checked, power  # noqa: E402
from power import base, clocks, label, median  # noqa: E402

from flashcore.kernels import gluon_fwd as gf  # noqa: E402
from timing import graph, replay_us  # noqa: E402

OUT, DTYPE = power.OUT, base.DTYPE
CELLS = [  # (B, Hq, Hkv, S), D=128 causal
    (8, 16, 16, 2048), (4, 16, 16, 4096), (2, 16, 16, 8192), (1, 16, 16, 16384), (4, 32, 8, 4096),
]


def cell(b, hq, hkv, s, log):
    g = torch.Generator(device="cuda").manual_seed(s + hkv)
    sets = [(torch.randn(b, hq, s, 128, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, 128, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, 128, device="cuda", dtype=DTYPE, generator=g)) for _ in range(3)]
    auto = gf.heuristic_config(90, 128, 2, True, s, s, b * hq)
    fns = {}
    for cfg in (auto, dataclasses.replace(auto, pingpong=True)):
        run = gf.prepare(*sets[0], True, 128 ** -0.5, cfg, store_lse=True)
        ok = checked(run, sets, hq // hkv)
        log.write(f"B{b} H{hq}/{hkv} S{s} {label(cfg)}: {'ok' if ok else 'FAILED its check'}\n")
        if not ok:
            raise SystemExit(f"{label(cfg)} failed its check")
        fns[label(cfg)] = lambda q, k, v, run=run: run(q, k, v)[0]
    names, graphs = list(fns), []
    for name in names:
        fn = (lambda i, f=fns[name]: f(*sets[i % 3]))
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(base.ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    return auto, sets, names, graphs


def main():
    sampler = clocks.ClockSampler(os.environ.get("GPU", "0"))
    print("sampler:", sampler.start(), flush=True)
    tag = str(DTYPE)[6:]
    log, rows = open(os.path.join(OUT, f"turns-{tag}.log"), "w"), []
    for b, hq, hkv, s in CELLS:
        case = f"B{b} H{hq}/{hkv} S{s} D128 causal {tag}"
        auto, sets, names, graphs = cell(b, hq, hkv, s, log)
        short, short_w, long, long_w = power.measure(graphs)
        flops = 4 * b * hq * s * s * 128 / 2
        line, row = f"{case} (auto: {label(auto)})\n", dict(case=case, providers=[])
        for i, name in enumerate(names):
            rs = sorted(a / x for a, x in zip(short[0], short[i]))
            rl = sorted(a / x for a, x in zip(long[0], long[i]))
            cs, cl = sampler.window(short_w[i]), sampler.window(long_w[i])
            p = dict(name=name, short_us=median(short[i]), long_us=median(long[i]), short_ratio=median(rs),
                     long_ratio=median(rl), long_lo=rl[0], long_hi=rl[-1], short_clock=cs, long_clock=cl,
                     short=short[i], long=long[i])
            p["long_mj"] = (cl["power_w"] or 0) * p["long_us"] * 1e-3
            row["providers"].append(p)
            line += (f"   {name:24s} short {p['short_us']:7.1f} us {p['short_ratio']:.3f} [{rs[0]:.3f}, {rs[-1]:.3f}]"
                     f" | long {p['long_us']:7.1f} us {flops / p['long_us'] / 1e6:4.0f} TF {p['long_ratio']:.3f}"
                     f" [{rl[0]:.3f}, {rl[-1]:.3f}] {cl['sm_mhz'] or 0:5.0f} MHz {cl['power_w'] or 0:4.0f} W"
                     f" {p['long_mj']:6.1f} mJ/call\n")
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del graphs, sets
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, long_ms=power.LONG_MS, dtype=tag, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"turns-{tag}.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
