"""Stage 1's causal launch order: the persistent kernels' longest-first order over chunks of
heads whose K/V fit in half of L2 (``_tile_coords``), against the order before (each head's
query blocks in turn, longest first within the head; the same code with ``chunk`` = 1).

D=128 S=512 causal (B=32 H=16, 4096 CTAs of 64 rows, 4 a SM) reads 0.97-0.995 of cuDNN, and
call 1 found no tile faster. In the order before, the last heads' longest blocks start within
the last wave and run alone at the end; a model of 528 slots (slots_model.py, kernel log v49)
put the ordered tail at 5-7% of the time. Each cell: the new order, the old
(both through ``gluon_fwd.prepare`` with auto's config, checked against the fp64 reference on
fresh independent Q, K, V with O and LSE NaN-poisoned before a rerun that must give the same
bits), auto through the API and cuDNN, in power.py's two windows.
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-power/scripts"))
import power  # noqa: E402
from power import base, clocks, label, median  # noqa: E402

import flashcore  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402
from timing import graph, replay_us  # noqa: E402

OUT, DTYPE = power.OUT, base.DTYPE
CELLS = [  # (B, H, S, D), causal: the stage-1 causal cells of the standard and dims presets
    (32, 16, 512, 128), (32, 32, 512, 64), (16, 32, 1024, 64), (8, 64, 2048, 32), (4, 64, 4096, 32),
]


def prepared(sets, d, cfg, chunk_one):
    real = gf.causal_chunk
    if chunk_one:
        gf.causal_chunk = lambda *a: 1
    try:
        return gf.prepare(*sets[0], True, d ** -0.5, cfg, store_lse=True)
    finally:
        gf.causal_chunk = real


def cell(b, h, s, d, log):
    g = torch.Generator(device="cuda").manual_seed(s + d)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DTYPE, generator=g) for _ in range(3))
            for _ in range(3)]
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * h)
    fns = {}
    for name, chunk_one in (("new order", False), ("old order", True)):
        run = prepared(sets, d, cfg, chunk_one)
        ok = base.checked(run, sets, True, h)
        log.write(f"B{b} H{h} S{s} D{d} {name} {label(cfg)}: {'ok' if ok else 'FAILED its check'}\n")
        if not ok:
            raise SystemExit(f"{name} failed its check")
        fns[name] = lambda q, k, v, run=run: run(q, k, v)[0]
    fns["auto"] = lambda q, k, v: flashcore.attention(q, k, v, causal=True)
    fns.update(base.peers(sets, True))
    names, graphs = list(fns), []
    for name in names:
        fn = (lambda i, f=fns[name]: f(*sets[i % 3]))
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(base.ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    return cfg, sets, names, graphs


def main():
    sampler = clocks.ClockSampler(os.environ.get("GPU", "0"))
    print("sampler:", sampler.start(), flush=True)
    tag = str(DTYPE)[6:]
    log, rows = open(os.path.join(OUT, f"order-{tag}.log"), "w"), []
    for b, h, s, d in CELLS:
        case = f"B{b} H{h} S{s} D{d} causal {tag}"
        cfg, sets, names, graphs = cell(b, h, s, d, log)
        short, short_w, long, long_w = power.measure(graphs)
        flops = 4 * b * h * s * s * d / 2
        line, row = f"{case} ({label(cfg)}; this / new order, > 1: new is faster)\n", dict(case=case, providers=[])
        for i, name in enumerate(names):
            rs = sorted(x / a for a, x in zip(short[0], short[i]))
            rl = sorted(x / a for a, x in zip(long[0], long[i]))
            cs, cl = sampler.window(short_w[i]), sampler.window(long_w[i])
            p = dict(name=name, short_us=median(short[i]), long_us=median(long[i]), short_over_new=median(rs),
                     short_lo=rs[0], short_hi=rs[-1], long_over_new=median(rl), long_lo=rl[0], long_hi=rl[-1],
                     short_clock=cs, long_clock=cl, short=short[i], long=long[i])
            row["providers"].append(p)
            line += (f"   {name:10s} short {p['short_us']:7.1f} us {flops / p['short_us'] / 1e6:4.0f} TF"
                     f" {p['short_over_new']:.3f} [{rs[0]:.3f}, {rs[-1]:.3f}] {cs['sm_mhz'] or 0:5.0f} MHz"
                     f" | long {p['long_us']:7.1f} us {p['long_over_new']:.3f} [{rl[0]:.3f}, {rl[-1]:.3f}]"
                     f" {cl['sm_mhz'] or 0:5.0f} MHz {cl['power_w'] or 0:4.0f} W\n")
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del graphs, sets
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, long_ms=power.LONG_MS, dtype=tag, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"order-{tag}.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
