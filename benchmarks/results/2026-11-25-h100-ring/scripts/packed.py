"""Runs with ../patches/packed.patch applied (Config.packed was removed after this probe).

H100: partials cross DSMEM as O / row sum in the input dtype (Config.packed: 10 KB instead of
18 KB per warpgroup at D=64), at the seed's four cells.

Prediction (kernel log v31): v30's trace put B=1's merge at ~0.9 us for 18 KB (DSMEM ~20-25 GB/s
per SM, time in proportion to bytes), so halving the bytes saves ~0.4 us at B=1 full (4.65 ->
~4.25) and ~0.2 us at B=1 causal with halves (each direction 9 -> 5 KB). B=2 merges inside the
CTA through shared memory: no change expected.

Checks every packed config in bf16 (the coarser rounding of the partial) on odd shapes, then
seed_cells.run: fp16 checks and paired graph rounds against Gluon, shipped configs beside."""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-cute-dispatch/scripts"))
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import cute_fwd as cf  # noqa: E402
from seed_cells import run  # noqa: E402

C = cf.Config
B1_FULL = [C(128, 2, 2), C(128, 2, 2, packed=True)]
B1_CAUSAL = [C(128, 2, 2, exclusive=True, halves=True), C(128, 2, 2, exclusive=True, halves=True, packed=True),
             C(128, 2, 2, exclusive=True, packed=True)]
B2_FULL = [C(128, 1, 4, wgs=2, interleave=True), C(128, 1, 4, wgs=2, interleave=True, packed=True)]
B2_CAUSAL = [C(128, 1, 4, wgs=2), C(128, 1, 4, wgs=2, packed=True)]
fails = 0
for cfg in [c for cs in (B1_FULL, B1_CAUSAL, B2_FULL, B2_CAUSAL) for c in cs if c.packed]:
    for b, h, hk, sq, sk, d in [(1, 8, 8, 512, 512, 64), (2, 8, 8, 512, 512, 64), (1, 8, 2, 300, 500, 64),
                                (1, 6, 3, 700, 400, 64), (2, 6, 3, 512, 384, 128)]:
        for causal in (False, True):
            if cf.constraints(cfg, d, sk):
                continue
            g = torch.Generator(device="cuda").manual_seed(sq * 5 + sk + causal)
            q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.bfloat16, generator=g)
            k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
            out = torch.full_like(q, float("nan"))
            lse = torch.full(q.shape[:3], float("nan"), device="cuda")
            cf.forward(q, k, v, causal, d ** -0.5, cfg, out, lse)
            ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
            fails += not ver.ok
            print(f"bf16 check {cfg} B{b} H{h}/{hk} Sq{sq} Sk{sk} D{d} causal={causal}: {'ok' if ver.ok else 'FAIL'} "
                  f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}", flush=True)
print(f"bf16 checks: {fails} failed", flush=True)
run("packed", {(1, False): B1_FULL, (1, True): B1_CAUSAL, (2, False): B2_FULL, (2, True): B2_CAUSAL},
    lambda c: c.packed)
