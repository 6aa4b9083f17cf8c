"""Run 4: auto after the turns rule (O in parts -> ping-pong turns) against the tree before
this session's head-dim work (padded GEMMs, the build's config), and at D=192 / 160 (the
D=256 build: two warpgroups on 128x64 tiles, no turns before) the parts without turns.

Prediction: D=96 / 80 at S=4k as run 3's "pp parts" (1.04-1.11x of padded). D=192 / 160:
as at D=96, no turns lose and turns win; 1.05-1.15x of padded if the GEMMs limit there.
    PYTHONPATH=$PWD/src python <this script>"""
import dataclasses
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

import flashcore  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS = int(os.environ.get("ROUNDS", 9))
ROUND_MS = 30.0
_chunked = gf.gemm_head_dim


def prepare(padded, *args, **kw):
    if padded:
        gf.gemm_head_dim = gf.padded_head_dim
    try:
        run = gf.prepare(*args, **kw)
        run(*args[:3])
        return run
    finally:
        gf.gemm_head_dim = _chunked


def check(fn, q, k, v, causal):
    out = fn(q, k, v)
    torch.cuda.synchronize()
    return judge(out[:1, :2].cpu(), q[:1, :2].cpu(), k[:1, :2].cpu(), v[:1, :2].cpu(), causal=causal).ok


CELLS = [(4, 16, 4096, 96, False), (4, 16, 4096, 96, True), (4, 24, 4096, 80, False), (4, 24, 4096, 80, True),
         (8, 16, 2048, 96, False), (4, 8, 4096, 192, False), (4, 8, 4096, 192, True), (4, 8, 4096, 160, False),
         (4, 8, 4096, 160, True), (16, 8, 1024, 192, False), (16, 8, 1024, 192, True)]

# Run 9 (RUN=9): grids of one wave or less, where auto's configs did not change but O's parts
# run on them (the split kernel's two warpgroups on the same rows take no turns); "before" is
# the same config padded.
CELLS_9 = [(1, 8, 2048, 96, True), (1, 4, 4096, 80, True), (1, 8, 4096, 96, True), (1, 8, 512, 96, False),
           (1, 8, 512, 96, True), (2, 8, 1024, 80, False), (1, 8, 2048, 192, True), (1, 8, 512, 192, False)]
if os.environ.get("RUN") == "9":
    CELLS, ROUNDS = CELLS_9, int(os.environ.get("ROUNDS", 15))


def main():
    rows, tlog = [], open(os.path.join(OUT, "rounds.log"), "w")
    for b, h, s, d, causal in CELLS:
        torch.manual_seed(0)
        sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3)) for _ in range(2)]

        def cudnn(q, k, v):
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        fns = {"cudnn": cudnn, "auto": lambda q, k, v: flashcore.attention(q, k, v, causal=causal)}
        build = gf._build_config(90, d, causal, s, s, b * h)
        variants = {"before": (True, build)}
        if d > 128:
            variants["parts no turns"] = (False, build)
        for name, (padded, cfg) in variants.items():
            run = prepare(padded, *sets[0], causal, d ** -0.5, cfg, store_lse=False)
            fns[name] = lambda q, k, v, run=run: run(q, k, v)[0]
        for name in list(fns):
            if name != "cudnn" and not check(fns[name], *sets[1], causal):
                print(f"{name} D{d} S{s}: FAILED its check", flush=True)
                del fns[name]
        names = list(fns)
        graphs = []
        for name in names:
            fn = (lambda i, f=fns[name]: f(*sets[i % 2]))
            one = replay_us(graph(fn, 4), 4)
            calls = max(4, int(ROUND_MS * 1000 / one))
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
        ref = times[names.index("cudnn")]
        line = f"{case:24s}"
        row = dict(case=case, auto_config=dataclasses.asdict(gf.heuristic_config(90, d, 2, causal, s, s, b * h)),
                   providers=[])
        for name, t in zip(names, times):
            r = sorted(a / x for a, x in zip(ref, t))
            row["providers"].append(dict(name=name, us=median(t), tflops=flops / median(t) / 1e6, vs_cudnn=median(r),
                                         lo=r[0], hi=r[-1], times=t))
            line += f" | {name} {median(t):6.1f} {flops / median(t) / 1e6:4.0f}TF {median(r):.2f}x"
        if "before" in names:
            a, p = times[names.index("auto")], times[names.index("before")]
            r = sorted(x / y for x, y in zip(p, a))
            line += f" || auto/before {median(r):.3f} [{r[0]:.3f}, {r[-1]:.3f}]"
            row["auto_over_before"] = dict(median=median(r), lo=r[0], hi=r[-1])
        rows.append(row)
        print(line, flush=True)
        tlog.write(line + "\n")
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, "rounds.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
