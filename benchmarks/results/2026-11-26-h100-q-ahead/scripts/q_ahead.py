"""Run 1: Q of a persistent CTA's next item loaded a whole item ahead (``Config.q_ahead``).

The S-scaling of the shipped persistent kernels reads ~4.5-5 us per work item over
~1.53 us per 128x128 key tile at D=128 (bench-1a78ea9: full S2k/4k/8k/16k, causal
S4k/16k): about three tiles' worth per item. One suspect: Q of the next item is loaded only
once every consumer's last S GEMM has read the current Q (one buffer), so its DRAM
latency runs against the last P @ V and the epilogue. With ``q_ahead`` the producer
draws the next item as soon as this one's first K/V tile is on its way, and loads its Q
into a second buffer. Prediction: 0.5-1 us per item hidden, so +1-3% on causal S2k-4k and
full S1k-4k, less at 8k.

Checks first (fp64 reference, NaN-poisoned O and LSE; several laps per CTA, Sq != Sk,
GQA), then paired CUDA-graph rounds, ratio = auto's time / the variant's.
    PYTHONPATH=$PWD/src python <this script>"""
import dataclasses
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-26-h100-own-rows/scripts"))
import ring_pos  # noqa: E402
from ring_pos import OUT, compare  # noqa: E402

from flashcore import dispatch  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

ring_pos.CELLS = [(4, 16, 4096, 128, True), (8, 16, 2048, 128, True), (2, 16, 8192, 128, True),
                  (4, 16, 4096, 128, False), (16, 16, 1024, 128, False), (8, 32, 2048, 64, False),
                  (2, 32, 8192, 64, True)]
ring_pos.ROUNDS = int(os.environ.get("ROUNDS", 11))


def auto_config(d, causal, s, bh, dtype=torch.bfloat16):
    return dispatch.kernel_config("gluon", 90, dtype, d, causal, s, s, bh)


fails = checks = 0
log = open(os.path.join(OUT, "q_ahead_checks.log"), "w")
builds = []
for b, h, s, d, c in ring_pos.CELLS:
    cfg = auto_config(d, c, s, b * h)
    builds += [(torch.bfloat16, cfg, d, c), (torch.bfloat16, dataclasses.replace(cfg, q_ahead=True), d, c)]
builds.append((torch.float16, dataclasses.replace(auto_config(128, True, 4096, 64), q_ahead=True), 128, True))
builds.append((torch.float16, dataclasses.replace(auto_config(128, False, 4096, 64), q_ahead=True), 128, False))
builds = list(dict.fromkeys(builds))
for dtype, cfg, d, causal in builds:
    for b, hq, hkv, sq, sk in ((2, 16, 16, 2000, 2000), (2, 16, 4, 1000, 1500), (1, 8, 8, 1500, 700),
                               (3, 40, 40, 900, 900)):
        g = torch.Generator(device="cuda").manual_seed(sq + sk + d + causal + hkv)
        q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
        k, v = (torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
        out = torch.full_like(q, float("nan"))
        lse = torch.full(q.shape[:3], float("nan"), device="cuda")
        try:
            gf.forward(q, k, v, causal, d ** -0.5, cfg, out=out, lse=lse)
            torch.cuda.synchronize()
            ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
            ok, msg = ver.ok, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}"
        except Exception as e:  # noqa: BLE001
            ok, msg = False, f"{type(e).__name__}: {str(e)[:300]}"
        fails += not ok
        checks += 1
        line = (f"{str(dtype)[6:]} q_ahead={cfg.q_ahead} {cfg} D{d} B{b} H{hq}/{hkv} Sq{sq} Sk{sk} "
                f"{'causal' if causal else 'full'}: {'ok' if ok else 'FAIL'} {msg}")
        log.write(line + "\n")
        log.flush()
        if not ok:
            print(line, flush=True)
log.write(f"checks: {checks}, {fails} failed\n")
log.close()
print(f"checks: {checks}, {fails} failed", flush=True)


def q_ahead(d):
    def prep(q, k, v, causal, scale):
        cfg = auto_config(d, causal, q.shape[2], q.shape[0] * q.shape[1])
        return gf.prepare(q, k, v, causal, scale, dataclasses.replace(cfg, q_ahead=True))
    return [("q_ahead", prep)]


compare("q_ahead", q_ahead)
