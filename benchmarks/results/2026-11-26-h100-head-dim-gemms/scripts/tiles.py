"""Run 3: why O's parts lose at S=4k (run 2: 0.84-0.94x of the padded build on the
persistent builds without turns) while they win at S=1k (1.02-1.17x, the ping-pong build
and stage 1). Paired rounds at S=4k of each config with O's parts (this tree) and padded
(both GEMMs over the whole build), for auto's config and the ping-pong persistent one;
then (``ncu`` argument) one launch of each for Nsight Compute.

Prediction: if the loss is the two warpgroups' GEMMs meeting on the tensor pipe (no turns),
the ping-pong build keeps run 2's S=1k gain and beats auto's config at S=4k.
    PYTHONPATH=$PWD/src python <this script> [ncu]"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS = int(os.environ.get("ROUNDS", 11))
ROUND_MS = 30.0
_chunked = gf.gemm_head_dim


def prepare(padded, *args, **kw):
    if padded:
        gf.gemm_head_dim = gf.padded_head_dim
    try:
        run = gf.prepare(*args, **kw)
        run(*args[:3])  # the first run compiles, with the constexprs prepare took
        return run
    finally:
        gf.gemm_head_dim = _chunked


def configs(b, h, s, d, causal):
    return {"auto": gf.heuristic_config(90, d, 2, causal, s, s, b * h),
            "pp": gf.Config(128, 128, 8, 2, True, pingpong=True, persistent=True),
            "ws": gf.Config(128, 128, 8, 2, True)}


def check(run, q, k, v, causal):
    out = run(q, k, v)[0]
    torch.cuda.synchronize()
    return judge(out[:1, :2].float().cpu().to(q.dtype), q[:1, :2].cpu(), k[:1, :2].cpu(), v[:1, :2].cpu(),
                 causal=causal).ok


CELLS = [(4, 16, 4096, 96, False), (4, 16, 4096, 96, True), (4, 24, 4096, 80, False), (4, 24, 4096, 80, True),
         (8, 16, 2048, 96, False)]


def timing():
    rows, tlog = [], open(os.path.join(OUT, "rounds.log"), "w")
    for b, h, s, d, causal in CELLS:
        torch.manual_seed(0)
        sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3)) for _ in range(2)]

        def cudnn(q, k, v):
            with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
        fns = {"cudnn": cudnn}
        for label, cfg in configs(b, h, s, d, causal).items():
            for padded in (False, True):
                run = prepare(padded, *sets[0], causal, d ** -0.5, cfg, store_lse=False)
                name = f"{label} {'padded' if padded else 'parts'}"
                if check(run, *sets[1], causal):
                    fns[name] = lambda q, k, v, run=run: run(q, k, v)
                else:
                    print(f"{name} D{d} S{s}: FAILED its check", flush=True)
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
        row = dict(case=case, providers=[])
        for name, t in zip(names, times):
            r = sorted(a / x for a, x in zip(ref, t))
            row["providers"].append(dict(name=name, us=median(t), tflops=flops / median(t) / 1e6, vs_cudnn=median(r),
                                         lo=r[0], hi=r[-1], times=t))
            line += f" | {name} {median(t):6.1f} {median(r):.2f}x"
        rows.append(row)
        print(line, flush=True)
        tlog.write(line + "\n")
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, "rounds.json"), "w"), indent=1)


def ncu():
    """One launch each of auto's config, parts then padded, D=96 S=4k causal (after warm-up)."""
    b, h, s, d, causal = 4, 16, 4096, 96, True
    q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
    cfg = configs(b, h, s, d, causal)["auto"]
    for padded in (False, True):
        run = prepare(padded, q, k, v, causal, d ** -0.5, cfg, store_lse=False)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_push("parts" if not padded else "padded")
        run(q, k, v)
        torch.cuda.synchronize()
        torch.cuda.nvtx.range_pop()


if __name__ == "__main__":
    ncu() if sys.argv[1:] == ["ncu"] else timing()
