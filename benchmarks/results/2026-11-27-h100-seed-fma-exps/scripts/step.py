"""H100: where the seed's per-call time steps down with the graph's length (intercept.py: B=2
flashcore 5.53 -> 5.38 us full and 5.02 -> 4.88 causal between 200- and 400-call replays, cuDNN
10.0 -> 10.2 the other way). Each line times one provider's replays as the bench does
(timing._graph: hold, events, median over ~150 ms) with nvidia-smi's SM clock and power over the
same window, varying one thing: the calls a replay (200-400 by 50), the rotation sets (10, 25,
50 at 200 calls), and two 200-call replays back to back in one sample.
    PYTHONPATH=$PWD/src OUT=... python <this script>"""
import json
import os

import torch

from flashcore.bench import cases, clocks, providers, timing
from flashcore.bench.correctness import make_inputs

OUT = os.environ.get("OUT", ".")
timing.MAX_GRAPH_CALLS = 1024


def measure(call, n, twice=False):
    """Median us a call over ~150 ms of n-call replays (two replays a sample when ``twice``)."""
    timer = timing.default_timer(torch.device("cuda"))
    if not twice:
        samples, _ = timing._graph(timer, call, 200.0 / n, 150.0, n)
        return sorted(samples)[len(samples) // 2]
    graph = timing._capture(call, n)
    replay = lambda _j: graph.replay()  # noqa: E731
    timer.sample(replay, 2)
    samples = []
    for _ in range(60):
        timer.hold(timing.HOLD_MIN_US)
        samples.append(timer.sample(replay, 2) / (2 * n))
    return sorted(samples)[len(samples) // 2]


def main():
    dev = torch.device("cuda")
    sampler = clocks.ClockSampler(os.environ.get("GPU", "0"))
    print("sampler:", sampler.start(), flush=True)
    log, rows = open(os.path.join(OUT, "step.log"), "w"), []
    for causal in (False, True):
        case = cases.Case(batch=2, heads_q=8, seq_q=512, head_dim=64, causal=causal, dtype=torch.float16)
        pool = [make_inputs(case, dev, seed=10_000 + i, gen_device=dev) for i in range(50)]
        for name in ("flashcore", "sdpa-cudnn"):
            prov = providers.REGISTRY[name]()
            with prov.session():
                runs = [prov.bound(case, *s) for s in pool]
                points = [(n, 25, False) for n in (200, 250, 300, 350, 400)]
                points += [(200, 10, False), (200, 50, False), (200, 25, True), (400, 50, False)]
                for n, sets, twice in points:
                    call = lambda j, s=sets: runs[j % s]()  # noqa: E731
                    for j in range(100):
                        call(j)
                    torch.cuda.synchronize()
                    t0 = clocks.now()
                    us = measure(call, n, twice)
                    clock = sampler.window([(t0, clocks.now())])
                    row = dict(case=f"B2 {'causal' if causal else 'full'}", provider=name, calls=n, sets=sets,
                               two_replays=twice, us=us, sm_mhz=clock.get("sm_mhz"), power_w=clock.get("power_w"))
                    rows.append(row)
                    text = (f"{row['case']:9s} {name:11s} calls {n:3d} sets {sets:2d}{' x2' if twice else '   '}"
                            f" {us:6.2f} us  {clock.get('sm_mhz') or 0:5.0f} MHz {clock.get('power_w') or 0:4.0f} W")
                    print(text, flush=True)
                    log.write(text + "\n")
            del runs, prov
        del pool
        torch.cuda.empty_cache()
    sampler.stop()
    json.dump(dict(rows=rows, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, "step.json"), "w"), indent=1)


main()
