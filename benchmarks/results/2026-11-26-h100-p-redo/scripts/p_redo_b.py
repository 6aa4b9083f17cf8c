"""Run 4: run 3 lost (keep-x 2-8% faster) with a shorter common path, so which part costs?
The kernel under test (auto) is 673e08b's gluon_fwd.py with D=128's check on fp32 p and x
(``patches/f32_with_x.patch``: P packed after the check, the redo from x writing fp32 p; no
pointer arguments, no recompute from memory). Variants: keep-x (673e08b, OLD_SRC) and
``scale_only`` (C_SRC: the same without x, its redo only scaling p; timing only, overflow
unhandled). Offline its common path (``flashcore profile --sass``) is 331 (causal) / 338 (full)
instructions against 362 / 369 for keep-x, no P copies after the join. Prediction: 1-3% over keep-x, if run 3's loss
came from its pointer arguments or its recompute block; else the same loss.

Checks first (fp64 reference, NaN-poisoned O and LSE): random, rising keys, one key 450 nats
up; then paired CUDA-graph rounds, ratio = auto's time / the variant's.

Setup from 673e08b's tree (untracked files travel to the device):
    git show 673e08b:src/flashcore/kernels/gluon_fwd.py > old_gluon_fwd.py
    git apply benchmarks/results/2026-11-26-h100-p-redo/patches/f32_with_x.patch
    sed 's/^SCALE_ONLY = gl.constexpr(False)/SCALE_ONLY = gl.constexpr(True)/' \
        src/flashcore/kernels/gluon_fwd.py > var_c_gluon_fwd.py
    OLD_SRC=$PWD/old_gluon_fwd.py C_SRC=$PWD/var_c_gluon_fwd.py PYTHONPATH=$PWD/src python <this script>"""
import dataclasses
import importlib.util
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

spec = importlib.util.spec_from_file_location("flashcore.kernels.gluon_fwd_old", os.environ["OLD_SRC"])
old = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = old
spec.loader.exec_module(old)
spec = importlib.util.spec_from_file_location("flashcore.kernels.gluon_fwd_scale_only", os.environ["C_SRC"])
scale_only = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = scale_only
spec.loader.exec_module(scale_only)

ring_pos.CELLS = [(2, 16, 8192, 128, False), (2, 16, 8192, 128, True), (4, 16, 4096, 128, True),
                  (8, 16, 2048, 128, True), (8, 16, 1024, 128, True), (1, 16, 16384, 128, True)]
ring_pos.ROUNDS = int(os.environ.get("ROUNDS", 11))


def auto_config(d, causal, s, bh, dtype=torch.bfloat16):
    return dispatch.kernel_config("gluon", 90, dtype, d, causal, s, s, bh)


def inputs(kind, b, h, sq, sk, d, dtype, seed):
    g = torch.Generator(device="cuda").manual_seed(seed)
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, h, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    if kind == "rising":
        k = (k.float() * torch.linspace(1.0, 6.0, sk, device="cuda").view(1, 1, -1, 1)).to(dtype)
    elif kind == "spike":
        q = (q.float() + 1.0).to(dtype)
        k[:, :, (sk * 7) // 12] = 40.0
    return q, k, v


fails = checks = 0
log = open(os.path.join(OUT, "p_redo_b_checks.log"), "w")
# Each cell's own auto config (bf16 and fp16), then stage 1, the key split and ping-pong; D=64's
# unchanged path on two builds (its kernels take the two new pointer arguments too).
builds = [(dt, auto_config(d, c, s, b * h, dt), d, c) for b, h, s, d, c in ring_pos.CELLS
          for dt in (torch.bfloat16, torch.float16)]
for cfg, ds, flags in ((gf.Config(64, 128, 4, 2), (128,), (False, True)),
                       (gf.Config(64, 64, 8, 2, True, split_kv=2), (128,), (True,)),
                       (gf.Config(128, 128, 8, 2, True, True), (128,), (False,)),
                       (gf.Config(64, 128, 4, 2), (64,), (True,))):
    builds += [(dt, cfg, d, c) for d in ds for c in flags for dt in (torch.bfloat16, torch.float16)]
builds = list(dict.fromkeys(builds))
for dtype, cfg, d, causal in builds:
    for kind, (sq, sk) in (("random", (1000, 1000)), ("random", (777, 1500)), ("rising", (300, 1500)),
                           ("spike", (900, 1200))):
        q, k, v = inputs(kind, 2, 4, sq, sk, d, dtype, seed=sq + sk + d + causal)
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
        line = (f"{str(dtype)[6:]} {kind} {cfg} D{d} Sq{sq} Sk{sk} {'causal' if causal else 'full'}: "
                f"{'ok' if ok else 'FAIL'} {msg}")
        log.write(line + "\n")
        log.flush()
        if not ok:
            print(line, flush=True)
log.write(f"checks: {checks}, {fails} failed\n")
log.close()
print(f"checks: {checks}, {fails} failed", flush=True)

def runner(mod, d):
    def prep(q, k, v, causal, scale):
        cfg = auto_config(d, causal, q.shape[2], q.shape[0] * q.shape[1])
        return mod.prepare(q, k, v, causal, scale, mod.Config(**dataclasses.asdict(cfg)))
    return prep


compare("p_redo_b", lambda d: [("keep_x@673e08b", runner(old, d)), ("scale_only", runner(scale_only, d))])
