"""Does the 192x64 rule (``gluon_fwd.three_warpgroups_read_less``) hold on GQA's full rows?

Call 1's bench (1/gqa-*.log, ~110 ms turns) read auto (192x64, three warpgroups) over the
config it replaced (128x128, two warpgroups, stream-K tail) at 1.026 / 1.048 (bf16 / fp16) at
S=2k but 0.962 / 0.980 at S=8k and 0.984 / 0.991 at S=16k, where the standard preset's cells
had read 1.011-1.062 (2026-11-27-h100-power/ run 15). Here each cell runs power.py's two
windows (SHORT: 30 ms paired rounds; LONG: each alone for 800 ms, the second half timed) with
the clock and power, on GQA (Hq=32, Hkv=8) and, as a control, the standard preset's MHA cell.
Every provider is checked first against the fp64 reference on fresh independent Q, K, V (O
and LSE NaN-poisoned before a rerun that must give the same bits), one KV group of heads.
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
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402
from timing import graph, replay_us  # noqa: E402

OUT, DTYPE = power.OUT, base.DTYPE
W2_SK = gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True)  # auto's before the rule
CELLS = [  # (B, Hq, Hkv, S), D=128 full
    (2, 32, 8, 8192), (1, 32, 8, 16384), (4, 32, 8, 4096), (2, 16, 16, 8192),
]


def checked(run, sets, group):
    ok = True
    for q, k, v in sets[1:]:
        out, lse = run(q, k, v)
        first = out.clone()
        out.fill_(float("nan")); lse.fill_(float("nan"))  # noqa: E702
        out, lse = run(q, k, v)
        torch.cuda.synchronize()
        ok = ok and judge(out[:, :group], q[:, :group], k[:, :1], v[:, :1], causal=False, lse=lse[:, :group]).ok
        ok = ok and torch.equal(out, first)
    return ok


def cell(b, hq, hkv, s, log):
    g = torch.Generator(device="cuda").manual_seed(s + hq)
    sets = [(torch.randn(b, hq, s, 128, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, 128, device="cuda", dtype=DTYPE, generator=g),
             torch.randn(b, hkv, s, 128, device="cuda", dtype=DTYPE, generator=g)) for _ in range(3)]
    auto = gf.heuristic_config(90, 128, 2, False, s, s, b * hq)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v)}
    for cfg in (auto, W2_SK):
        run = gf.prepare(*sets[0], False, 128 ** -0.5, cfg, store_lse=True)
        ok = checked(run, sets, hq // hkv)
        log.write(f"B{b} H{hq}/{hkv} S{s} {label(cfg)}: {'ok' if ok else 'FAILED its check'}\n")
        if not ok:
            raise SystemExit(f"{label(cfg)} failed its check")
        fns[label(cfg) if cfg != auto else "auto via prepare"] = lambda q, k, v, run=run: run(q, k, v)[0]
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
    log, rows = open(os.path.join(OUT, f"gqa-power-{tag}.log"), "w"), []
    for b, hq, hkv, s in CELLS:
        case = f"B{b} H{hq}/{hkv} S{s} D128 full {tag}"
        auto, sets, names, graphs = cell(b, hq, hkv, s, log)
        short, short_w, long, long_w = power.measure(graphs)
        flops = 4 * b * hq * s * s * 128
        line, row = f"{case} (auto: {label(auto)})\n", dict(case=case, auto=label(auto), providers=[])
        for i, name in enumerate(names):
            rs = sorted(a / x for a, x in zip(short[0], short[i]))
            rl = sorted(a / x for a, x in zip(long[0], long[i]))
            cs, cl = sampler.window(short_w[i]), sampler.window(long_w[i])
            p = dict(name=name, short_us=median(short[i]), long_us=median(long[i]), short_auto_over=median(rs),
                     long_auto_over=median(rl), long_lo=rl[0], long_hi=rl[-1], short_clock=cs, long_clock=cl)
            p["long_mj"] = (cl["power_w"] or 0) * p["long_us"] * 1e-3
            row["providers"].append(p)
            line += (f"   {name:26s} short {p['short_us']:7.1f} us {p['short_auto_over']:.3f}"
                     f" {cs['sm_mhz'] or 0:5.0f} MHz | long {p['long_us']:7.1f} us {flops / p['long_us'] / 1e6:4.0f} TF"
                     f" {p['long_auto_over']:.3f} [{rl[0]:.3f}, {rl[-1]:.3f}] {cl['sm_mhz'] or 0:5.0f} MHz"
                     f" {cl['power_w'] or 0:4.0f} W {p['long_mj']:6.1f} mJ/call\n")
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del graphs, sets
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, long_ms=power.LONG_MS, dtype=tag, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"gqa-power-{tag}.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
