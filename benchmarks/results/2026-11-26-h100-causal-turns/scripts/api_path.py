"""Run 25: runs 23-24 read D=64 causal S=8k level with the build before the change, where runs 18,
19 and 21 read 1.04. Those runs differ in two ways: auto went through ``flashcore.attention``
(not ``gluon_fwd.prepare``) and FA4 shared the rotation. This run drops FA4 and times the API
path, this tree's prepare and the baseline's prepare (``baseline.py``, as own_tiles.py says) in
one paired rotation, bf16, two input sets as in runs 23-24.
Ratio = the API path's time / the other's (< 1: the API path is faster).
    PYTHONPATH=$PWD/src python <this script>"""
import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
sys.path.insert(0, HERE)
import torch  # noqa: E402
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

import flashcore  # noqa: E402
from flashcore import dispatch  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402
from own_tiles import old  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS, ROUND_MS = int(os.environ.get("ROUNDS", 21)), 30.0
rows = []
for b, h, s, d in ((2, 32, 8192, 64), (1, 32, 16384, 64)):
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3)) for _ in range(2)]
    cfg = dispatch.kernel_config("gluon", 90, torch.bfloat16, d, True, s, s, b * h)
    runs = [mod.prepare(*sets[0], True, d ** -0.5, mod.Config(**cfg.as_dict()), store_lse=False) for mod in (gf, old)]
    fns = [lambda i: flashcore.attention(*sets[i % 2], causal=True)] + [
        (lambda i, r=r: r(*sets[i % 2])) for r in runs]
    names = ["api", "prepare", "before"]
    graphs = []
    for fn in fns:
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    times = paired_rounds(graphs, ROUNDS)
    line = f"B{b} H{h} S{s} D{d} causal api {median(times[0]):7.1f} us"
    row = dict(case=line.split(" api")[0], variants=[])
    for name, t in zip(names, times):
        r = sorted(a / x for a, x in zip(times[0], t))
        row["variants"].append(dict(name=name, us=median(t), api_over=median(r), lo=r[0], hi=r[-1], times=t))
        if name != "api":
            line += f" | {name} {median(t):7.1f} us, api/{name} {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]"
    rows.append(row)
    print(line, flush=True)
json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name()),
          open(os.path.join(OUT, "api_path.json"), "w"), indent=1)
