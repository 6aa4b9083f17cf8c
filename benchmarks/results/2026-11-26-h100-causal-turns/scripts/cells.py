"""Ping-pong turns on persistent causal launches at D=128: the dynamic longest-first schedule and
plans of whole pairs of items (``flashcore.kernels.causal_plan``), with and without turns.
Paired CUDA-graph rounds of auto against each candidate, after checks against the fp64
reference on fresh inputs (Q, K, V independent, outputs poisoned, the bits compared across two
runs). Candidates may be (config, PAIRS_FILL, PAIRS_MAX) tuples: the plan that config builds.
    PYTHONPATH=$PWD/src CELLS=16 DTYPE=bf16 python <this script>"""
import dataclasses
import json
import os
import sys

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
DTYPE = {"bf16": torch.bfloat16, "fp16": torch.float16}[os.environ.get("DTYPE", "bf16")]
from timing import graph, median, paired_rounds, replay_us  # noqa: E402

import flashcore  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import causal_plan  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS, ROUND_MS = int(os.environ.get("ROUNDS", 11)), 30.0
C = gf.Config
PORTABLE = "portable"  # flashcore.attention(backend="triton")
PLAN = C(128, 128, 8, 2, True, persistent=True, stream_k=True)
PLAN_PP = C(128, 128, 8, 2, True, True, True, stream_k=True)
PLAN_D64 = C(192, 128, 12, 3, True, True, True, stream_k=True)
# Run 16 (CELLS=16): the plan of pairs read 1.07-1.11x with turns over itself without them at
# one pair a CTA (2026-11-26-h100-causal-plan/12-turns/), while the dynamic schedule reads turns
# within noise (v38 run 3). Question: is it the plan or the few heads? The standard preset's causal
# D=128 cells (eight pairs a CTA) with turns on both, and B=1 H=8 S=4096 (auto: one pair, turns)
# against the dynamic schedule with turns.
DYN = C(128, 128, 8, 2, True, persistent=True)
DYN_PP = C(128, 128, 8, 2, True, True, True)
PLAN = C(128, 128, 8, 2, True, persistent=True, stream_k=True)
PLAN_PP = C(128, 128, 8, 2, True, True, True, stream_k=True)
PAIRS8, PAIRS8_PP = (PLAN, 7 / 8, 16), (PLAN_PP, 7 / 8, 16)
RUN16 = {
    (4, 16, 16, 4096, 4096, 128, True): [DYN_PP, PAIRS8, PAIRS8_PP],
    (2, 16, 16, 8192, 8192, 128, True): [DYN_PP, PAIRS8_PP],
    (8, 16, 16, 2048, 2048, 128, True): [DYN_PP, PAIRS8_PP],
    (4, 32, 8, 4096, 4096, 128, True): [DYN_PP, PAIRS8_PP],
    (1, 8, 8, 4096, 4096, 128, True): [DYN, DYN_PP],
}
CELLS = {"16": RUN16}[os.environ.get("CELLS", "16")]
PEERS = os.environ.get("PEERS", "0") == "1"


def label(cfg):
    return (f"{cfg.block_m}x{cfg.block_n} s{cfg.num_stages}" + (" ws" if cfg.warp_specialize else "")
            + (" pp" if cfg.pingpong else "") + (" pers" if cfg.persistent else "") + (" sk" if cfg.stream_k else "")
            + (f" ctas{cfg.kv_ctas}" if cfg.kv_ctas > 1 else "") + (f" split{cfg.split_kv}" if cfg.split_kv > 1 else "")
            + ("" if cfg.lazy_rescale else " eager") + (" rot" if getattr(cfg, "rotate", False) else ""))


def sdpa(backend, causal):
    def fn(q, k, v):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=q.shape[1] != k.shape[1])
    return fn


def main():
    rows, log = [], open(os.path.join(OUT, "rounds.log"), "w")
    for (b, hq, hkv, sq, sk, d, causal), cands in list(CELLS.items())[int(os.environ.get("SKIP", 0)):]:
        case = f"B{b} H{hq}/{hkv} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'}"
        print(f"{case} auto: {label(gf.heuristic_config(90, d, 2, causal, sq, sk, b * hq))}", flush=True)
        g = torch.Generator(device="cuda").manual_seed(sq + sk + d + causal)
        sets = [(torch.randn(b, hq, sq, d, device="cuda", dtype=DTYPE, generator=g),
                 *(torch.randn(b, hkv, sk, d, device="cuda", dtype=DTYPE, generator=g) for _ in range(2)))
                for _ in range(3)]
        fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=causal),
               "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION, causal), "flash": sdpa(SDPBackend.FLASH_ATTENTION, causal)}
        for peer in () if PEERS else ("cudnn", "flash"):
            del fns[peer]
        for peer in ("cudnn", "flash") if PEERS else ():
            try:
                fns[peer](*sets[0])
            except RuntimeError as e:  # SDPA's kernels take causal masks on square calls only
                log.write(f"{case} {peer}: {str(e)[:120]}\n")
                del fns[peer]
        for cfg in cands:
            if cfg == PORTABLE:
                fns[PORTABLE] = lambda q, k, v: flashcore.attention(q, k, v, causal=causal, backend="triton")
                continue
            fill = None
            if isinstance(cfg, tuple):  # (config, PAIRS_FILL, PAIRS_MAX for its plan)
                cfg, fill, most = cfg
            name = label(cfg) + (f" pairs<={most}" if fill else "")
            if gf.constraints(cfg, d):
                log.write(f"{case} {name}: {gf.constraints(cfg, d)}\n")
                continue
            if fill:
                kept = causal_plan.PAIRS_FILL, causal_plan.PAIRS_MAX
                causal_plan.PAIRS_FILL, causal_plan.PAIRS_MAX = fill, most
                causal_plan._TABLES.clear()
            run = gf.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=True)
            if fill:
                causal_plan.PAIRS_FILL, causal_plan.PAIRS_MAX = kept
                causal_plan._TABLES.clear()
            ok = True
            for q, k, v in sets[1:]:
                out, lse = run(q, k, v)
                first = out.clone()
                out.fill_(float("nan")); lse.fill_(float("nan"))  # poisoned: the rerun must write every value
                out, lse = run(q, k, v)
                torch.cuda.synchronize()
                n = 2 if hq == hkv else hq  # MHA: two heads against the fp64 reference
                ok = ok and judge(out[:, :n], q[:, :n], k[:, :n], v[:, :n], causal=causal, lse=lse[:, :n]).ok
                ok = ok and torch.equal(out, first)  # the same inputs give the same bits
            log.write(f"{case} {name}: {'ok' if ok else 'FAILED its check'}\n")
            print(f"{case} {name}: {'ok' if ok else 'FAILED its check'}", flush=True)
            if ok:
                fns[name] = lambda q, k, v, run=run: run(q, k, v)
        names = list(fns)
        graphs = []
        for name in names:
            fn = (lambda i, f=fns[name]: f(*sets[i % 3]))
            one = replay_us(graph(fn, 4), 4)
            calls = max(4, int(ROUND_MS * 1000 / one))
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        auto = times[0]
        line = case + "\n"
        row = dict(case=case, providers=[])
        for name, t in zip(names, times):
            r = sorted(a / x for a, x in zip(auto, t))  # auto's time over this one's: > 1, this one is faster
            row["providers"].append(dict(name=name, us=median(t), auto_over=median(r), lo=r[0], hi=r[-1], times=t))
            line += f"   {name:28s} {median(t):8.1f} us  auto/this {median(r):.3f} [{r[0]:.3f}, {r[-1]:.3f}]\n"
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name(),
                   torch=torch.__version__), open(os.path.join(OUT, "rounds.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
