"""H100: is the seed's step (step.py) a property of each captured graph? B=2 (full and causal)
at 200 and 400 calls a replay: six graphs of each, captured one after another the bench's way
(timing._capture), each timed on its own (hold, events, median of 40 replays), with the outputs'
addresses each graph's calls got (distinct blocks, the first one's offset in a 2 MiB page).
    PYTHONPATH=$PWD/src OUT=... python <this script>"""
import json
import os

import torch

from flashcore.bench import cases, providers, timing
from flashcore.bench.correctness import make_inputs

OUT = os.environ.get("OUT", ".")


def main():
    dev = torch.device("cuda")
    timer = timing.default_timer(dev)
    log, rows = open(os.path.join(OUT, "captures.log"), "w"), []
    for causal in (False, True):
        case = cases.Case(batch=2, heads_q=8, seq_q=512, head_dim=64, causal=causal, dtype=torch.float16)
        sets = [make_inputs(case, dev, seed=10_000 + i, gen_device=dev) for i in range(25)]
        for name in ("flashcore", "sdpa-cudnn"):
            prov = providers.REGISTRY[name]()
            with prov.session():
                runs = [prov.bound(case, *s) for s in sets]
                for n in (200, 400):
                    for rep in range(6):
                        ptrs = []

                        def call(j):
                            out = runs[j % 25]()
                            ptrs.append(out.data_ptr())
                            return out
                        graph = timing._capture(call, n)
                        ptrs = ptrs[-n:]  # the captured calls' outputs
                        replay = lambda _j: graph.replay()  # noqa: E731
                        timer.sample(replay, 1)
                        samples = []
                        for _ in range(40):
                            timer.hold(timing.HOLD_MIN_US)
                            samples.append(timer.sample(replay, 1) / n)
                        samples.sort()
                        row = dict(case=f"B2 {'causal' if causal else 'full'}", provider=name, calls=n, graph=rep,
                                   us=samples[len(samples) // 2], p10=samples[4], p90=samples[-5],
                                   distinct_outputs=len(set(ptrs)), first_offset=ptrs[0] % (2 << 20))
                        rows.append(row)
                        text = (f"{row['case']:9s} {name:11s} calls {n} graph {rep}: {row['us']:.2f} us "
                                f"[{row['p10']:.2f}, {row['p90']:.2f}] outputs {row['distinct_outputs']}"
                                f" first at {row['first_offset']:#x}")
                        print(text, flush=True)
                        log.write(text + "\n")
                        del graph
            del runs, prov
        del sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, "captures.json"), "w"), indent=1)


main()
