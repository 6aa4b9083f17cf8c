"""Warpgroups that skip the key tiles their own rows do not see (``gluon_fwd._own_tiles``,
``_pass_unseen``), against the same configs built from the tree before the change
(``baseline.py`` beside this script, ``git show 2a57b14:src/flashcore/kernels/gluon_fwd.py``;
not committed).

Where: every consumer warpgroup walked every key tile its block's rows see. A 192-row block
(D=64, three warpgroups) on 128-key tiles leaves the lower warpgroups whole tiles past their
causal horizon (3% of the warpgroup-tiles at S=8k, 8% at S=4k), and a last block that runs
past Sq leaves whole warpgroups of padding (full D=64 S=2k / 4k: 3%; a 128-row block at
S=3000 half of each head's longest item). Prediction: D=64 causal S=8k / 16k +1-3%, full S=2k /
4k +1-2%, S=3000 causal on the D=128 build +2-4%, the D=128 standard cells (nothing to skip)
within +-1%.

Checks first (fp64 reference, NaN-poisoned O and LSE; odd lengths, Sq != Sk both ways, GQA,
rows with no key, whole warpgroups past Sq, causal plans with cut items, fp16), each launch
run twice for equal bits. Then paired CUDA-graph rounds; ratio = the baseline's time / this
tree's (> 1: the change is faster).
    PYTHONPATH=$PWD/src python <this script>"""
import importlib.util
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

from flashcore import dispatch  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
DTYPE = {"bf16": torch.bfloat16, "fp16": torch.float16}[os.environ.get("DTYPE", "bf16")]  # the timed cells'
ROUNDS, ROUND_MS = int(os.environ.get("ROUNDS", 11)), 30.0
C = gf.Config


def load_baseline():
    spec = importlib.util.spec_from_file_location("flashcore.kernels.gluon_fwd_baseline",
                                                  os.path.join(HERE, "baseline.py"))
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


old = load_baseline()
D64_192 = C(192, 128, 12, 3, True, True, True)
CHECK_CONFIGS = [  # (config, head dims)
    (C(128, 128, 8, 2, True, persistent=True), (128, 96)), (C(128, 128, 8, 2, True, True, True), (128, 80)),
    (C(128, 128, 8, 2, True, persistent=True, stream_k=True), (128,)),
    (C(128, 128, 8, 2, True, True, True, stream_k=True), (128, 96)),
    (C(128, 128, 8, 2, True), (128,)), (C(128, 128, 8, 3, True, True), (128,)),
    (D64_192, (64, 32)), (C(192, 128, 12, 3, True, True, True, stream_k=True), (64,)),
    (C(192, 128, 12, 2, True), (64,)), (C(192, 64, 12, 2, True, True, persistent=True), (96,)),
    (C(128, 64, 8, 2, True), (256,)), (C(192, 128, 12, 3, True, True, True, max_free=False), (64,)),
]
SHAPES = [(2, 8, 8, 1000, 1000), (1, 8, 2, 257, 700), (2, 4, 4, 1, 513), (1, 4, 4, 700, 300),
          (3, 16, 16, 300, 300), (1, 8, 8, 3000, 3000), (2, 4, 4, 1100, 1100)]


def check(mod, cfg, d, causal, dtype, shape):
    b, hq, hkv, sq, sk = shape
    g = torch.Generator(device="cuda").manual_seed(sq + sk + d + causal + hkv)
    q = torch.randn(b, hq, sq, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, hkv, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    outs = []
    for _ in range(2):
        out = torch.full_like(q, float("nan"))
        lse = torch.full(q.shape[:3], float("nan"), device="cuda")
        mod.forward(q, k, v, causal, d ** -0.5, mod.Config(**cfg.as_dict()), out=out, lse=lse)
        torch.cuda.synchronize()
        outs.append((out, lse))
    ver = judge(outs[0][0], q, k, v, causal=causal, scale=d ** -0.5, lse=outs[0][1])
    same = torch.equal(outs[0][0], outs[1][0])
    return ver.ok and same, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason} same bits {same}"


def run_checks():
    fails = checks = 0
    log = open(os.path.join(OUT, "checks.log"), "w")
    only = os.environ.get("CHECK_CONFIGS")  # indices into CHECK_CONFIGS (run 18: those run 17 did not reach)
    for n, (cfg, dims) in enumerate(CHECK_CONFIGS):
        if only and str(n) not in only.split(","):
            continue
        for d in dims:
            for causal in (False, True):
                for i, shape in enumerate(SHAPES):
                    dtype = torch.float16 if i == 1 and n < 4 else torch.bfloat16  # fp16: a build of its own
                    if gf.constraints(cfg, d):
                        continue
                    try:
                        ok, msg = check(gf, cfg, d, causal, dtype, shape)
                    except Exception as e:  # noqa: BLE001
                        ok, msg = False, f"{type(e).__name__}: {str(e)[:300]}"
                    fails += not ok
                    checks += 1
                    line = f"{cfg} D{d} {shape} {'causal' if causal else 'full'} {str(dtype)[6:]}: {'ok' if ok else 'FAIL'} {msg}"
                    log.write(line + "\n")
                    log.flush()
                    if not ok:
                        print(line, flush=True)
    log.write(f"checks: {checks}, {fails} failed\n")
    print(f"checks: {checks}, {fails} failed", flush=True)
    return fails


# (B, H, S, D, causal): extra configs to time on both trees besides auto's
CELLS = [
    ((2, 32, 8192, 64, True), []), ((1, 32, 16384, 64, True), []),
    ((8, 32, 2048, 64, False), []), ((4, 32, 4096, 64, False), []), ((2, 32, 8192, 64, False), []),
    ((4, 32, 4096, 64, True), [D64_192]), ((8, 32, 2048, 64, True), [D64_192]),
    ((2, 8, 3000, 128, True), []), ((2, 8, 3000, 96, True), []), ((1, 8, 3000, 128, True), []),
    ((2, 8, 3000, 64, False), []),
    ((4, 16, 4096, 128, True), []), ((2, 16, 8192, 128, False), []), ((1, 8, 4096, 128, True), []),
    # run 19: the skip on three warpgroups only; D=80/96 full from 2k keys run 192x64 blocks
    ((4, 16, 4096, 96, False), []), ((4, 24, 4096, 80, False), []),
]


def label(cfg):
    return (f"{cfg.block_m}x{cfg.block_n}s{cfg.num_stages}" + ("-pp" if cfg.pingpong else "")
            + ("-pers" if cfg.persistent else "") + ("-sk" if cfg.stream_k else ""))


def time_cells():
    rows, log = [], open(os.path.join(OUT, f"rounds-{str(DTYPE)[6:]}.log"), "w")
    only = os.environ.get("CELLS")  # indices into CELLS
    for (b, h, s, d, causal), extra in [c for i, c in enumerate(CELLS) if not only or str(i) in only.split(",")]:
        torch.manual_seed(0)
        sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DTYPE) for _ in range(3)) for _ in range(3)]
        auto = dispatch.kernel_config("gluon", 90, DTYPE, d, causal, s, s, b * h)
        fns, names = [], []
        for cfg in [auto] + extra:
            for tag, mod in (("old", old), ("new", gf)):
                run = mod.prepare(*sets[0], causal, d ** -0.5, mod.Config(**cfg.as_dict()), store_lse=False)
                fns.append(lambda i, run=run: run(*sets[i % 3]))
                names.append(f"{tag} {label(cfg)}")
        graphs = []
        for fn in fns:
            one = replay_us(graph(fn, 4), 4)
            calls = max(4, int(ROUND_MS * 1000 / one))
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'} {str(DTYPE)[6:]}"
        pairs = (s * (s + 1) // 2) if causal else s * s
        line = f"{case:26s}"
        row = dict(case=case, variants=[])
        for i in range(0, len(names), 2):
            r = sorted(a / x for a, x in zip(times[i], times[i + 1]))  # old time / new time
            tf = 4 * b * h * pairs * d / median(times[i + 1]) / 1e6
            row["variants"].append(dict(config=names[i][4:], old_us=median(times[i]), new_us=median(times[i + 1]),
                                        old_over_new=median(r), lo=r[0], hi=r[-1], new_tflops=tf,
                                        old_times=times[i], new_times=times[i + 1]))
            line += (f" | {names[i][4:]} {median(times[i + 1]):7.1f} us ({tf:.0f} TF) old/new {median(r):.3f}"
                     f" [{r[0]:.3f},{r[-1]:.3f}]")
        rows.append(row)
        print(line, flush=True)
        log.write(line + "\n")
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, dtype=str(DTYPE), rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, f"rounds-{str(DTYPE)[6:]}.json"), "w"), indent=1)


if __name__ == "__main__":
    if os.environ.get("PART", "checks") == "checks":
        run_checks()
    else:
        time_cells()
