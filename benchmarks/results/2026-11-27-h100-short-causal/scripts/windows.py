"""What gqa_power.py, order.py, chunk.py and turns.py share: each cell's inputs, the check of a
prepared config against the fp64 reference, its CUDA graphs, and power.py's two windows (SHORT:
30 ms paired rounds; LONG: each provider alone for LONG_MS, its second half timed) with clock,
power and energy a call, written as a log and JSON. Calls 2 and 6-9 ran each script with its
own copy of these (git history before the commit that added this module)."""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-power/scripts"))
import power  # noqa: E402
from power import base, clocks, label, median  # noqa: E402

from flashcore.bench.correctness import judge  # noqa: E402
from timing import graph, replay_us  # noqa: E402

OUT, DTYPE = power.OUT, base.DTYPE
TAG = str(DTYPE)[6:]


def inputs(b, hq, hkv, s, d, seed):
    """Three sets of independent Q, K, V (K and V with ``hkv`` heads)."""
    g = torch.Generator(device="cuda").manual_seed(seed)
    return [(torch.randn(b, hq, s, d, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, d, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, d, device="cuda", dtype=DTYPE, generator=g)) for _ in range(3)]


def checked(run, sets, group, causal):
    """sweep.checked on one KV group of query heads (GQA: heads 0..group-1 read KV head 0; MHA:
    two heads): O and LSE NaN-poisoned before a rerun that must give the same bits."""
    n, kv = (group, 1) if group > 1 else (2, 2)
    ok = True
    for q, k, v in sets[1:]:
        out, lse = run(q, k, v)
        first = out.clone()
        out.fill_(float("nan")); lse.fill_(float("nan"))  # noqa: E702
        out, lse = run(q, k, v)
        torch.cuda.synchronize()
        ok = ok and judge(out[:, :n], q[:, :n], k[:, :kv], v[:, :kv], causal=causal, lse=lse[:, :n]).ok
        ok = ok and torch.equal(out, first)
    return ok


def passing(run, sets, group, causal, log, what):
    """``run``'s output alone, once it has passed ``checked`` (else the script stops)."""
    ok = checked(run, sets, group, causal)
    log.write(f"{what}: {'ok' if ok else 'FAILED its check'}\n")
    if not ok:
        raise SystemExit(f"{what} failed its check")
    return lambda q, k, v: run(q, k, v)[0]


def graphs(fns, sets):
    """Per provider, its name and a CUDA graph of ~30 ms of calls rotating the input sets."""
    names, out = list(fns), []
    for name in names:
        fn = (lambda i, f=fns[name]: f(*sets[i % 3]))
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(base.ROUND_MS * 1000 / one))
        out.append((graph(fn, calls), calls))
    return names, out


def provider_row(name, i, short, short_w, long, long_w, sampler, flops, this_over_first):
    """One provider's times, ratios against the first provider, clock, power and energy."""
    ratio = (lambda a, x: x / a) if this_over_first else (lambda a, x: a / x)
    rs = sorted(ratio(a, x) for a, x in zip(short[0], short[i]))
    rl = sorted(ratio(a, x) for a, x in zip(long[0], long[i]))
    cs, cl = sampler.window(short_w[i]), sampler.window(long_w[i])
    p = dict(name=name, short_us=median(short[i]), long_us=median(long[i]), short_ratio=median(rs),
             short_lo=rs[0], short_hi=rs[-1], long_ratio=median(rl), long_lo=rl[0], long_hi=rl[-1],
             short_clock=cs, long_clock=cl, short=short[i], long=long[i])
    p["long_mj"] = (cl["power_w"] or 0) * p["long_us"] * 1e-3
    line = (f"   {name:26s} short {p['short_us']:7.1f} us {flops / p['short_us'] / 1e6:4.0f} TF"
            f" {p['short_ratio']:.3f} [{rs[0]:.3f}, {rs[-1]:.3f}] {cs['sm_mhz'] or 0:5.0f} MHz"
            f" | long {p['long_us']:7.1f} us {flops / p['long_us'] / 1e6:4.0f} TF {p['long_ratio']:.3f}"
            f" [{rl[0]:.3f}, {rl[-1]:.3f}] {cl['sm_mhz'] or 0:5.0f} MHz {cl['power_w'] or 0:4.0f} W"
            f" {p['long_mj']:6.1f} mJ/call\n")
    return p, line


def run_cells(name, cells, build, this_over_first=False):
    """Time each cell: ``build(cell, log)`` gives (case, header, flops, sets, names, graphs).
    Writes ``<name>-<dtype>.log`` and ``.json`` under OUT."""
    sampler = clocks.ClockSampler(os.environ.get("GPU", "0"))
    print("sampler:", sampler.start(), flush=True)
    log, rows = open(os.path.join(OUT, f"{name}-{TAG}.log"), "w"), []
    for cell in cells:
        case, header, flops, sets, names, cell_graphs = build(cell, log)
        measured = power.measure(cell_graphs)
        line, row = f"{case} ({header})\n", dict(case=case, header=header, providers=[])
        for i, provider in enumerate(names):
            p, text = provider_row(provider, i, *measured, sampler, flops, this_over_first)
            row["providers"].append(p)
            line += text
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del cell_graphs, sets
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, long_ms=power.LONG_MS, dtype=TAG, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"{name}-{TAG}.json"), "w"), indent=1)
