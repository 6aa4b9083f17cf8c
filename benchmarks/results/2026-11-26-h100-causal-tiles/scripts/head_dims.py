"""Run 4: head dims between and beyond the Gluon builds, against cuDNN / SDPA flash and the
portable kernel that auto ran them on before, in paired CUDA-graph rounds.

- D=96 / 80 / 48 run the D=128 / D=64 builds with the columns past D zero-filled by TMA
  (this tree's ``padded_head_dim``). Prediction: D=96 ~3/4 of D=128's rate (450-500 TF
  against cuDNN's ~400 and the portable kernel's ~250), D=80 ~5/8 (~400 against 410).
- D=256: a D=256 build of the same kernel, not yet in ``padded_head_dim`` (patched in here).
  Offline (sm_90a): no spills for the warp-specialised 128x64 / 128x32 tiles (197 / 131 KB of
  shared memory; persistent needs 263 KB and is out) and stage 1's 64x64 / 64x32 (216 / 180
  registers). cuDNN read 614-661 TF at D=256 (3-odd-dims/); the portable kernel 185.
  Prediction: 128x64 two warpgroups 450-550 TF.

Checks first (fp64 reference, NaN-poisoned O and LSE, the LSE judged; odd lengths, Sq != Sk,
GQA, rows with no key, bshd). A build that fails is never timed.
    PYTHONPATH=$PWD/src python <this script>"""
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

import flashcore  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS = int(os.environ.get("ROUNDS", 11))
ROUND_MS = 30.0
_padded = gf.padded_head_dim
gf.padded_head_dim = lambda d: 256 if 128 < d <= 256 else _padded(d)

D256 = [("ws 128x64", gf.Config(128, 64, 8, 2, True)), ("ws 128x64 turns", gf.Config(128, 64, 8, 2, True, True)),
        ("ws 128x32", gf.Config(128, 32, 8, 2, True)), ("64x64 s2", gf.Config(64, 64, 4, 2)),
        ("64x32 s2", gf.Config(64, 32, 4, 2))]
SHAPES = ((2, 8, 8, 1000, 1000), (1, 8, 2, 257, 700), (2, 4, 4, 1, 513), (1, 4, 4, 700, 300), (3, 16, 16, 300, 300))


def check(run, d, causal, dtype, label, log):
    fails = 0
    for b, hq, hkv, sq, sk in SHAPES:
        g = torch.Generator(device="cuda").manual_seed(sq + sk + d + causal + hkv)
        q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
        k, v = (torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
        out = torch.full_like(q, float("nan"))
        lse = torch.full(q.shape[:3], float("nan"), device="cuda")
        try:
            run(q, k, v, causal, out, lse)
            torch.cuda.synchronize()
            ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
            ok, msg = ver.ok, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}"
        except Exception as e:  # noqa: BLE001
            ok, msg = False, f"{type(e).__name__}: {str(e)[:300]}"
        fails += not ok
        line = (f"{label} {str(dtype)[6:]} D{d} B{b} H{hq}/{hkv} Sq{sq} Sk{sk} "
                f"{'causal' if causal else 'full'}: {'ok' if ok else 'FAIL'} {msg}")
        log.write(line + "\n")
        if not ok:
            print(line, flush=True)
    return fails == 0


def gluon_run(cfg):
    def run(q, k, v, causal, out, lse):
        gf.forward(q, k, v, causal, q.shape[3] ** -0.5, cfg, out=out, lse=lse)
    return run


def api_run(q, k, v, causal, out, lse):
    o, l_ = flashcore.attention(q, k, v, causal=causal, return_lse=True)
    out.copy_(o)
    lse.copy_(l_)


def sdpa(backend):
    def fn(q, k, v, causal):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal)
    return fn


CELLS = [(4, 16, 4096, 96, False), (4, 16, 4096, 96, True), (4, 24, 4096, 80, False), (4, 24, 4096, 80, True),
         (4, 32, 4096, 48, False), (4, 8, 4096, 256, False), (4, 8, 4096, 256, True), (16, 8, 1024, 256, False),
         (16, 8, 1024, 256, True), (2, 8, 8192, 256, False)]


def main():
    log = open(os.path.join(OUT, "checks.log"), "w")
    ok = {}
    for d in (96, 80, 48, 72, 120, 40):
        for causal in (False, True):
            ok[("auto", d)] = ok.get(("auto", d), True) & check(api_run, d, causal, torch.bfloat16, "auto", log)
    ok[("auto", 96)] &= check(api_run, 96, True, torch.float16, "auto", log)
    for label, cfg in D256:
        good = all(check(gluon_run(cfg), 256, c, torch.bfloat16, label, log) for c in (False, True))
        ok[(label, 256)] = good and check(gluon_run(cfg), 256, True, torch.float16, label, log)
    bad = [k for k, v in ok.items() if not v]
    print(f"checked {len(ok)} builds; failed: {bad}", flush=True)
    log.write(f"failed: {bad}\n")
    log.close()

    rows, tlog = [], open(os.path.join(OUT, "rounds.log"), "w")
    for b, h, s, d, causal in CELLS:
        torch.manual_seed(0)
        sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=torch.bfloat16) for _ in range(3)) for _ in range(2)]
        fns = {"cudnn": sdpa(SDPBackend.CUDNN_ATTENTION), "sdpa-flash": sdpa(SDPBackend.FLASH_ATTENTION),
               "portable": lambda q, k, v, c: flashcore.attention(q, k, v, causal=c, backend="triton")}
        if d == 256:
            for label, cfg in D256:
                if ok[(label, 256)] and not gf.constraints(cfg, d):
                    run = gf.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=False)
                    fns[label] = lambda q, k, v, c, run=run: run(q, k, v)
        elif ok[("auto", d)]:
            fns = {"auto": lambda q, k, v, c: flashcore.attention(q, k, v, causal=c), **fns}
        names = list(fns)
        graphs = []
        for name in names:
            fn = (lambda i, f=fns[name]: f(*sets[i % 2], causal))
            one = replay_us(graph(fn, 4), 4)
            calls = max(4, int(ROUND_MS * 1000 / one))
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
        ref = times[names.index("cudnn")]
        line = f"{case:26s}"
        row = dict(case=case, providers=[])
        for name, t in zip(names, times):
            r = sorted(a / x for a, x in zip(ref, t))
            row["providers"].append(dict(name=name, us=median(t), tflops=flops / median(t) / 1e6, vs_cudnn=median(r),
                                         lo=r[0], hi=r[-1], times=t))
            line += f" | {name} {median(t):8.1f} us {flops / median(t) / 1e6:4.0f} TF {median(r):.2f}x"
        rows.append(row)
        print(line, flush=True)
        tlog.write(line + "\n")
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, "rounds.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
