"""H100: the causal rule of heuristic_config's unsplit branch (four warpgroups of one key tile
each, was two of two) on the cells it reaches beyond the seed: one-wave grids of 385-512 keys
at D=64 whose split grid would not fit a wave. Each cell: the new config checked against the
fp64 reference (NaN-poisoned O and LSE), then paired CUDA-graph rounds over 48 input sets
(past L2 where they are that large), a fresh output per call; ratio = the old config's time /
the variant's (> 1: faster than two warpgroups)."""
import json
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402
import flashcore  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import cute_fwd as cf  # noqa: E402

OUT = os.environ.get("OUT", ".")
NSETS, ROUNDS, ROUND_MS = 48, 15, 30.0
C = cf.Config
OLD, NEW, LABELS = C(128, 1, 4, wgs=2), C(128, 1, 4, wgs=4), ("two wgs", "four")
if os.environ.get("RULE") == "keys_first":  # call 84: four warpgroups, Ks before Vs, against four
    OLD, NEW, LABELS = C(128, 1, 4, wgs=4), C(128, 1, 4, wgs=4, keys_first=True), ("four", "Ks first")
CELLS = [(2, 8, 8, 512, 512, torch.float16), (2, 8, 8, 512, 512, torch.bfloat16), (1, 16, 16, 512, 512, torch.bfloat16),
         (4, 8, 8, 256, 512, torch.float16), (2, 8, 2, 512, 512, torch.float16), (2, 8, 8, 448, 448, torch.float16),
         (1, 8, 8, 1024, 512, torch.float16)]


def main():
    log = open(os.path.join(OUT, f"rule{os.environ.get('RULE', '')}.log"), "w")

    def say(s):
        print(s, flush=True); log.write(s + "\n"); log.flush()

    rows, fails = [], 0
    for b, h, hk, sq, sk, dt in CELLS:
        name = f"B{b} H{h}/{hk} Sq{sq} Sk{sk} D64 causal {str(dt)[6:]}"
        auto = cf.heuristic_config(90, 64, 2, True, sq, sk, b * h)
        g = torch.Generator(device="cuda").manual_seed(sq + sk + b)
        q = torch.randn(b, h, sq, 64, device="cuda", dtype=dt, generator=g)
        k, v = (torch.randn(b, hk, sk, 64, device="cuda", dtype=dt, generator=g) for _ in range(2))
        out, lse = torch.full_like(q, float("nan")), torch.full(q.shape[:3], float("nan"), device="cuda")
        cf.forward(q, k, v, True, 0.125, NEW, out, lse)
        torch.cuda.synchronize()
        ver = judge(out, q, k, v, causal=True, scale=0.125, lse=lse)
        fails += not ver.ok
        say(f"check {name} {NEW}: {'ok' if ver.ok else 'FAIL'} err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}")
        sets = [(torch.randn(b, h, sq, 64, device="cuda", dtype=dt, generator=g),
                 *(torch.randn(b, hk, sk, 64, device="cuda", dtype=dt, generator=g) for _ in range(2))) for _ in range(NSETS)]
        fns = [lambda i, c=c: cf.forward(*sets[i % NSETS], True, 0.125, c) for c in (OLD, NEW)]
        fns.append(lambda i: flashcore.attention(*sets[i % NSETS], causal=True, backend="gluon"))
        graphs = []
        for fn in fns:
            one = replay_us(graph(fn, NSETS), NSETS)
            calls = max(NSETS, int(ROUND_MS * 1000 / one) // NSETS * NSETS)
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        r = sorted(a / x for a, x in zip(times[0], times[1]))
        rg = sorted(a / x for a, x in zip(times[2], times[1]))
        say(f"{name} (heuristic: wgs={auto.wgs}, split={auto.split}, keys_first={auto.keys_first}): {LABELS[0]} {median(times[0]):.2f} us | {LABELS[1]} "
            f"{median(times[1]):.2f} us, {median(r):.3f} [{r[0]:.3f}, {r[-1]:.3f}] | gluon {median(times[2]):.2f} "
            f"(gluon / four {median(rg):.3f})")
        rows.append(dict(case=name, two=times[0], four=times[1], gluon=times[2], ratio=median(r), lo=r[0], hi=r[-1]))
    say(f"checks: {fails} failed")
    json.dump(dict(rows=rows, nsets=NSETS, rounds=ROUNDS, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, f"rule{os.environ.get('RULE', '')}.json"), "w"), indent=1)


main()
