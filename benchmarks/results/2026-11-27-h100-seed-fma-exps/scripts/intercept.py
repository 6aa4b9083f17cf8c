"""H100: the fixed cost of one CUDA-graph replay at the seed, per provider. v57 (run 4) read the
bench's seed numbers 0.2 us a call above 20x longer replays for flashcore (B=2: 25 calls a replay,
so ~5 us a replay) and 0.03-0.1 above for cuDNN (~1 us). Here each provider's calls (the bench's
own bound providers, its 25-50 rotation sets, timing._graph's hold and events) are captured in
graphs of N calls for several N; a line through (N, replay time) gives the replay's fixed cost
(intercept) and the time a call (slope). flashcore-nopdl launches the same kernels without PDL.
    PYTHONPATH=$PWD/src OUT=... python <this script>"""
import json
import os

import torch

from flashcore.bench import cases, providers, timing
from flashcore.bench.correctness import make_inputs

OUT = os.environ.get("OUT", ".")
NS = [int(x) for x in os.environ.get("NS", "25,50,100,200,400,800").split(",")]
PROVIDERS = os.environ.get("PROVIDERS", "flashcore,flashcore-nopdl,sdpa-cudnn").split(",")
timing.MAX_GRAPH_CALLS = max(NS)


def line(ns, totals):
    n = len(ns)
    mx, my = sum(ns) / n, sum(totals) / n
    slope = sum((x - mx) * (y - my) for x, y in zip(ns, totals)) / sum((x - mx) ** 2 for x in ns)
    return my - slope * mx, slope


def main():
    dev = torch.device("cuda")
    timer = timing.default_timer(dev)
    log, rows = open(os.path.join(OUT, "intercept.log"), "w"), []
    for b in (1, 2):
        for causal in (False, True):
            case = cases.Case(batch=b, heads_q=8, seq_q=512, head_dim=64, causal=causal, dtype=torch.float16)
            nsets = timing.rotation_sets(cases.io_bytes(case), timing.l2_bytes(dev))
            sets = [make_inputs(case, dev, seed=10_000 + i, gen_device=dev) for i in range(nsets)]
            for name in PROVIDERS:
                prov = providers.REGISTRY[name]()
                with prov.session():
                    runs = [prov.bound(case, *s) for s in sets]
                    call = lambda j: runs[j % nsets]()  # noqa: E731
                    for j in range(200):
                        call(j)
                    torch.cuda.synchronize()
                    per_call = {}
                    for n in NS:
                        samples, calls = timing._graph(timer, call, 200.0 / n, 150.0, n)
                        assert calls == n, (calls, n)
                        per_call[n] = sorted(samples)[len(samples) // 2]
                a, s = line(NS, [per_call[n] * n for n in NS])
                row = dict(case=f"B{b} {'causal' if causal else 'full'}", provider=name, sets=nsets,
                           per_call_us=per_call, intercept_us=a, slope_us=s)
                rows.append(row)
                text = (f"{row['case']:10s} {name:16s} sets {nsets:2d} | " + " ".join(f"{n}:{per_call[n]:.2f}" for n in NS)
                        + f" | replay's fixed cost {a:5.2f} us, a call {s:.3f} us")
                print(text, flush=True)
                log.write(text + "\n")
                del runs, prov
            del sets
            torch.cuda.empty_cache()
    json.dump(dict(rows=rows, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, "intercept.json"), "w"), indent=1)


main()
