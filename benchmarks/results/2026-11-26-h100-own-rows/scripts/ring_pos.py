"""H100: the rings' slot and phase from a mask and a shift (cute_fwd._ring_pos) against the
signed % and // they replace, in paired CUDA-graph rounds with Gluon (auto) and FA4.

Prediction: offline SASS drops 6 of 574 instructions per tile from RINGS[64]'s consumer loop
(and 6 from the producer's), all integer or uniform: within the rounds' spread (~1%).

The old kernel is cute_fwd.py at 3640225, loaded from OLD_SRC as a module of its own; both
builds passed the gpu tier's ring checks (gpu_checks.py: the new one; 3640225's in session 26).
Ratio = auto's time / the variant's (> 1: the variant is faster)."""
import importlib.util
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

import flashcore  # noqa: E402
from flashcore.kernels import cute_fwd as cf  # noqa: E402

try:
    from flash_attn.cute import flash_attn_func as FA4
except ImportError:
    FA4 = None

OUT = os.environ.get("OUT", ".")
ROUNDS, ROUND_MS, NSETS = 11, 30.0, 2
CELLS = [(2, 16, 8192, 128, False), (4, 16, 4096, 128, True), (2, 32, 8192, 64, True), (8, 32, 2048, 64, False),
         (1, 16, 16384, 64, False)]


def compare(name: str, variants) -> None:
    """``variants(d)``: [(label, prepare(q, k, v, causal, scale) -> run)] beside auto and FA4."""
    log = open(os.path.join(OUT, f"{name}.log"), "w")
    rows = []
    for b, h, s, d, causal in CELLS:
        torch.manual_seed(0)
        sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3))
                for _ in range(NSETS)]
        fns = [lambda i: flashcore.attention(*sets[i % NSETS], causal=causal)]
        names = ["auto"]
        if FA4 is not None:
            bshd = [tuple(t.transpose(1, 2).contiguous() for t in st) for st in sets]
            fns.append(lambda i: FA4(*bshd[i % NSETS], causal=causal))
            names.append("fa4")
        for label, prepare in variants(d):
            run = prepare(*sets[0], causal, d ** -0.5)
            fns.append(lambda i, run=run: run(*sets[i % NSETS]))
            names.append(label)
        graphs = []
        for fn in fns:
            one = replay_us(graph(fn, 4), 4)
            calls = max(4, int(ROUND_MS * 1000 / one))
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        line = f"{case:24s} auto {median(times[0]):7.1f} us ({flops / median(times[0]) / 1e6:.0f} TF)"
        row = dict(case=case, variants=[])
        for label, t in zip(names, times):
            r = sorted(a / x for a, x in zip(times[0], t))
            row["variants"].append(dict(name=label, us=median(t), ratio=median(r), lo=r[0], hi=r[-1], times=t,
                                        tflops=flops / median(t) / 1e6))
            if label != "auto":
                line += f" | {label} {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]"
        rows.append(row)
        print(line, flush=True)
        log.write(line + "\n")
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"{name}.json"), "w"), indent=1)


def _old_module():
    spec = importlib.util.spec_from_file_location("flashcore.kernels.cute_fwd_old", os.environ["OLD_SRC"])
    old = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = old
    spec.loader.exec_module(old)
    return old


if __name__ == "__main__":  # run 2 (a39d8f8)
    old = _old_module()
    compare("ring_pos", lambda d: [
        ("ring@3640225", lambda q, k, v, causal, scale: old.prepare(q, k, v, causal, scale, old.RINGS[d])),
        ("ring mask+shift", lambda q, k, v, causal, scale: cf.prepare(q, k, v, causal, scale, cf.RINGS[d]))])
