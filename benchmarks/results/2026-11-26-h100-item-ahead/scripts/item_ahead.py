"""Run 1: persistent consumers work out their next item before this item's epilogue, and the
dynamic schedule's producer posts each item a whole item ahead (two post slots), so neither
the draw's atomic nor the item's coordinates (integer divisions) sit between two items.
v37's trace (2026-11-26-h100-q-ahead/2-item-trace) read 416 ns from one item's epilogue to
the next item's start under the dynamic schedule and 160-190 ns under static ones.

Prediction: ~0.3 us per item: D=128 causal S2k +2%, S4k +1%, S8k +0.5%; D=64 causal S8k
+0.5%; full (stream-K / static) +0-0.5%.

Checks first (fp64 reference, NaN-poisoned O and LSE; odd lengths, Sq != Sk, GQA, rows with
no visible key, and grids of 6-16 items per CTA so the post slots turn over many times),
then paired CUDA-graph rounds against HEAD~'s gluon_fwd.py loaded from OLD_SRC; ratio =
auto's time / old's (below 1: the new build is faster).
    git show <old>:src/flashcore/kernels/gluon_fwd.py > old_gluon_fwd.py
    OLD_SRC=$PWD/old_gluon_fwd.py PYTHONPATH=$PWD/src python <this script>"""
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

ring_pos.CELLS = [(8, 16, 2048, 128, True), (4, 16, 4096, 128, True), (2, 16, 8192, 128, True),
                  (32, 16, 512, 128, False), (4, 16, 4096, 128, False), (2, 32, 8192, 64, True),
                  (4, 32, 4096, 64, False)]
ring_pos.ROUNDS = int(os.environ.get("ROUNDS", 11))


def auto_config(d, causal, s, bh, dtype=torch.bfloat16):
    return dispatch.kernel_config("gluon", 90, dtype, d, causal, s, s, bh)


SHAPES = ((2, 8, 8, 1000, 1000), (1, 8, 2, 257, 700), (2, 4, 4, 1, 513), (1, 4, 4, 700, 300),
          (3, 16, 16, 300, 300), (8, 16, 4, 1024, 1024), (4, 16, 16, 2048, 1500))
fails = checks = 0
log = open(os.path.join(OUT, "item_ahead_checks.log"), "w")
builds = [(torch.bfloat16, auto_config(d, c, s, b * h), d, c) for b, h, s, d, c in ring_pos.CELLS]
builds += [(torch.float16, auto_config(d, c, s, b * h, torch.float16), d, c) for b, h, s, d, c in ring_pos.CELLS[:2]]
builds += [(torch.bfloat16, gf.Config(128, 128, 8, 2, True, persistent=True, max_free=False), 128, True),
           (torch.bfloat16, gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True), 64, False),
           (torch.bfloat16, gf.Config(128, 128, 8, 2, True, True, persistent=True), 128, True)]
builds = list(dict.fromkeys(builds))
for dtype, cfg, d, causal in builds:
    for b, hq, hkv, sq, sk in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(sq + sk + d + causal + hkv)
        q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
        k, v = (torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
        out = torch.full_like(q, float("nan"))
        lse = torch.full(q.shape[:3], float("nan"), device="cuda")
        try:
            for _ in range(2):  # twice: the dynamic schedule's counter must come back zeroed
                out.fill_(float("nan"))
                lse.fill_(float("nan"))
                gf.forward(q, k, v, causal, d ** -0.5, cfg, out=out, lse=lse)
                torch.cuda.synchronize()
                ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
                if not ver.ok:
                    break
            ok, msg = ver.ok, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}"
        except Exception as e:  # noqa: BLE001
            ok, msg = False, f"{type(e).__name__}: {str(e)[:300]}"
        fails += not ok
        checks += 1
        line = (f"{str(dtype)[6:]} {cfg} D{d} B{b} H{hq}/{hkv} Sq{sq} Sk{sk} "
                f"{'causal' if causal else 'full'}: {'ok' if ok else 'FAIL'} {msg}")
        log.write(line + "\n")
        log.flush()
        if not ok:
            print(line, flush=True)
log.write(f"checks: {checks}, {fails} failed\n")
log.close()
print(f"checks: {checks}, {fails} failed", flush=True)


def variants(d):
    def prep(q, k, v, causal, scale):
        cfg = auto_config(d, causal, q.shape[2], q.shape[0] * q.shape[1])
        return old.prepare(q, k, v, causal, scale, old.Config(**dataclasses.asdict(cfg)))
    return [("old", prep)]


if fails == 0:
    compare("item_ahead", variants)
