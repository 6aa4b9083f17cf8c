"""H100 run 10: D=128 persistent tiles with ping-pong turns, now that the softmax is shorter
(max_free). Turns read within noise for causal rows and 0.980-0.995 for full rows from 2k keys
when each tile took the row max (v9, v25). Prediction: still within +-1%: the shorter softmax
leaves less for the other warpgroup's GEMMs to hide, so turns matter less, not more.
Checks first on the turned configs, then paired graph rounds against auto."""
import dataclasses
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import maxfree  # noqa: E402
import ring_pos  # noqa: E402
from ring_pos import OUT, compare  # noqa: E402
from sum_checked_inputs import inputs  # noqa: E402

from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

ring_pos.CELLS = [(8, 16, 2048, 128, True), (4, 16, 4096, 128, True), (2, 16, 8192, 128, True),
                  (2, 16, 8192, 128, False)]
ring_pos.ROUNDS = int(os.environ.get("ROUNDS", 15))


def turned(causal, s, bh):
    return dataclasses.replace(maxfree.auto_config(128, causal, s, bh), pingpong=True)


fails = 0
with open(os.path.join(OUT, "turns_checks.log"), "w") as log:
    for causal in (False, True):
        cfg = turned(causal, 8192, 32)
        for kind in ("random", "rising", "spike"):
            for sq, sk in ((2048, 2048), (777, 1500)):
                q, k, v = inputs(kind, 2, 4, sq, sk, 128, torch.bfloat16, sq + sk + causal)
                out = torch.full_like(q, float("nan"))
                lse = torch.full(q.shape[:3], float("nan"), device="cuda")
                gf.forward(q, k, v, causal, 128 ** -0.5, cfg, out=out, lse=lse)
                ver = judge(out, q, k, v, causal=causal, scale=128 ** -0.5, lse=lse)
                fails += not ver.ok
                log.write(f"{cfg} {kind} Sq{sq} Sk{sk} {'causal' if causal else 'full'}: "
                          f"{'ok' if ver.ok else 'FAIL'} {ver}\n")
    log.write(f"checks: {fails} failed\n")
print(f"checks: {fails} failed", flush=True)
compare("turns", lambda d: [("turns", lambda q, k, v, causal, scale: gf.prepare(
    q, k, v, causal, scale, turned(causal, q.shape[2], q.shape[0] * q.shape[1])))])
