"""The persistent causal kernels' chunk of heads (``gluon_fwd.causal_chunk``: as many heads as
keep their K/V within half of L2), against a quarter and an eighth of L2 (call 7) and against
all of L2, twice L2 and every head in one chunk (call 8: SHARES=2,1,0.5,0).

Call 6 (order.py) gave stage 1 the same longest-first order over half-L2 chunks and read it
8-18% slower at S=512 and 5% at S=1k than each head's blocks in turn: the CTAs in flight then
read K/V of up to a chunk of heads, and half of L2 held less than the order needs. If so, the
persistent kernels' chunks may be too wide as well. Each cell: auto's config through
``prepare`` with the chunk from half (as shipped), a quarter and an eighth of L2, each checked
against the fp64 reference (fresh independent Q, K, V; O and LSE NaN-poisoned before a rerun
that must give the same bits), in power.py's two windows.
    PYTHONPATH=$PWD/src DTYPE=bf16 python <this script>"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-power/scripts"))
import power  # noqa: E402
from power import base, clocks, label, median  # noqa: E402

from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402
from timing import graph, replay_us  # noqa: E402

OUT, DTYPE = power.OUT, base.DTYPE
CELLS = [  # (B, Hq, Hkv, S, D), causal
    (4, 16, 16, 4096, 128), (8, 16, 16, 2048, 128), (2, 16, 16, 8192, 128), (4, 32, 8, 4096, 128),
    (4, 32, 32, 4096, 64),
]
# The chunk's K/V within L2 / share (call 7: 2, 4, 8; call 8: 2, 1, 0.5 and 0, every head).
SHARES = tuple(float(x) for x in os.environ.get("SHARES", "2,4,8").split(","))
REAL = gf.causal_chunk


def checked(run, sets, group):
    """base.checked on one KV group of query heads (GQA's heads 0..group-1 read KV head 0)."""
    ok = True
    for q, k, v in sets[1:]:
        out, lse = run(q, k, v)
        first = out.clone()
        out.fill_(float("nan")); lse.fill_(float("nan"))  # noqa: E702
        out, lse = run(q, k, v)
        torch.cuda.synchronize()
        n = max(group, 2) if group == 1 else group
        kv = n if group == 1 else 1
        ok = ok and judge(out[:, :n], q[:, :n], k[:, :kv], v[:, :kv], causal=True, lse=lse[:, :n]).ok
        ok = ok and torch.equal(out, first)
    return ok


def chunk_for(share, s, hd, el, group, l2):
    return 1 << 20 if share == 0 else REAL(s, hd, el, group, int(l2 * 2 / share))


def prepared(sets, d, cfg, share):
    gf.causal_chunk = lambda s, hd, el, group, l2: chunk_for(share, s, hd, el, group, l2)
    try:
        return gf.prepare(*sets[0], True, d ** -0.5, cfg, store_lse=True)
    finally:
        gf.causal_chunk = REAL


def cell(b, hq, hkv, s, d, log):
    g = torch.Generator(device="cuda").manual_seed(s + d + hkv)
    sets = [(torch.randn(b, hq, s, d, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, d, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, d, device="cuda", dtype=DTYPE, generator=g)) for _ in range(3)]
    cfg = gf.heuristic_config(90, d, 2, True, s, s, b * hq)
    fns = {}
    for share in SHARES:
        chunk = min(b * hq, chunk_for(share, s, d, 2, hq // hkv, torch.cuda.get_device_properties(0).L2_cache_size))
        name = f"L2/{share:g} ({chunk} heads)" if share else f"all ({chunk} heads)"
        run = prepared(sets, d, cfg, share)
        ok = checked(run, sets, hq // hkv)
        log.write(f"B{b} H{hq}/{hkv} S{s} D{d} {name} {label(cfg)}: {'ok' if ok else 'FAILED its check'}\n")
        if not ok:
            raise SystemExit(f"{name} failed its check")
        fns[name] = lambda q, k, v, run=run: run(q, k, v)[0]
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
    log, rows = open(os.path.join(OUT, f"chunk-{tag}.log"), "w"), []
    for b, hq, hkv, s, d in CELLS:
        case = f"B{b} H{hq}/{hkv} S{s} D{d} causal {tag}"
        cfg, sets, names, graphs = cell(b, hq, hkv, s, d, log)
        short, short_w, long, long_w = power.measure(graphs)
        flops = 4 * b * hq * s * s * d / 2
        line, row = f"{case} ({label(cfg)}; half-L2 time / this, > 1: this is faster)\n", dict(case=case, providers=[])
        for i, name in enumerate(names):
            rs = sorted(a / x for a, x in zip(short[0], short[i]))
            rl = sorted(a / x for a, x in zip(long[0], long[i]))
            cs, cl = sampler.window(short_w[i]), sampler.window(long_w[i])
            p = dict(name=name, short_us=median(short[i]), long_us=median(long[i]), short_ratio=median(rs),
                     long_ratio=median(rl), long_lo=rl[0], long_hi=rl[-1], short_clock=cs, long_clock=cl,
                     short=short[i], long=long[i])
            row["providers"].append(p)
            line += (f"   {name:18s} short {p['short_us']:7.1f} us {flops / p['short_us'] / 1e6:4.0f} TF"
                     f" {p['short_ratio']:.3f} [{rs[0]:.3f}, {rs[-1]:.3f}] | long {p['long_us']:7.1f} us"
                     f" {flops / p['long_us'] / 1e6:4.0f} TF {p['long_ratio']:.3f} [{rl[0]:.3f}, {rl[-1]:.3f}]"
                     f" {cl['sm_mhz'] or 0:5.0f} MHz {cl['power_w'] or 0:4.0f} W\n")
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del graphs, sets
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, long_ms=power.LONG_MS, dtype=tag, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"chunk-{tag}.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
