"""Causal stream-K by a host plan (``flashcore.kernels.causal_plan``): persistent causal items cut
into one equal-cost run per CTA, pieces merged by tile-count tickets, against the dynamic
longest-first schedule (auto). Paired CUDA-graph rounds of auto against each candidate, after
checks against the fp64 reference on fresh inputs (Q, K, V independent, outputs poisoned, the
bits compared across two runs).

Prediction (the planner's model, ``causal_plan.lpt_time`` against ``plan_rows``): B=2 H=8
S=3000 (384 items of 128 rows, 2.9 waves) 2-7% faster; B=1 H=8 S=2112 (136 items) 25-35%;
B=1 H=8 S=4k and the standard preset's B=4 H=16 S=4k (15.5 waves) level or slower.
    PYTHONPATH=$PWD/src CELLS=1 python <this script>"""
import dataclasses
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
from flashcore.kernels import causal_plan  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS, ROUND_MS = int(os.environ.get("ROUNDS", 11)), 30.0
C = gf.Config
PORTABLE = "portable"  # flashcore.attention(backend="triton")
PLAN = C(128, 128, 8, 2, True, persistent=True, stream_k=True)
PLAN_PP = C(128, 128, 8, 2, True, True, True, stream_k=True)
PLAN_D64 = C(192, 128, 12, 3, True, True, True, stream_k=True)
# (B, Hq, Hkv, Sq, Sk, D, causal): candidates
RUN1 = {
    (2, 8, 8, 3000, 3000, 128, True): [PLAN, PLAN_PP],
    (2, 8, 8, 3000, 3000, 96, True): [PLAN_PP],
    (2, 8, 8, 3000, 3000, 80, True): [PLAN_PP],
    (2, 8, 8, 3000, 3000, 32, True): [C(128, 128, 8, 2, True, True, True), PLAN_PP],
    (1, 8, 8, 2112, 2112, 128, True): [PLAN],
    (1, 8, 8, 3072, 3072, 128, True): [PLAN],
    (1, 8, 8, 4096, 4096, 128, True): [PLAN],
    (1, 16, 16, 2048, 2048, 128, True): [PLAN],
    (4, 16, 16, 4096, 4096, 128, True): [PLAN],
    (2, 8, 8, 8192, 8192, 64, True): [PLAN_D64],
}
# Run 4 (CELLS=4): run 3 read the plan 1.03-1.07x at B*H = 8 (S=2112-4096, D=128) and 0.89-0.93x
# at B*H = 16 (S=2048, 3000): where between, and whether it holds for GQA and the O-in-parts dims.
RUN4 = {
    (1, 8, 8, 3000, 3000, 128, True): [PLAN], (1, 8, 8, 6144, 6144, 128, True): [PLAN],
    (1, 8, 8, 8192, 8192, 128, True): [PLAN], (1, 4, 4, 6000, 6000, 128, True): [PLAN],
    (1, 4, 4, 8192, 8192, 128, True): [PLAN], (1, 12, 12, 3000, 3000, 128, True): [PLAN],
    (1, 12, 12, 4096, 4096, 128, True): [PLAN], (1, 8, 2, 4096, 4096, 128, True): [PLAN],
    (1, 8, 8, 4096, 4096, 96, True): [PLAN_PP], (1, 8, 8, 3072, 3072, 80, True): [PLAN_PP],
    (2, 4, 4, 4096, 4096, 128, True): [PLAN], (1, 8, 8, 2112, 2112, 128, True): [PLAN],
}
# Run 5 (CELLS=5, PEERS=1): auto with the plan at B*H <= 8 (``causal_plan_pays``) against the
# dynamic schedule it replaced (DYN, DYN_PP where O runs in parts), with SDPA's cuDNN and flash.
DYN = C(128, 128, 8, 2, True, persistent=True)
DYN_PP = C(128, 128, 8, 2, True, True, True)
RUN5 = {
    (1, 8, 8, 4096, 4096, 128, True): [DYN], (1, 8, 8, 8192, 8192, 128, True): [DYN],
    (1, 4, 4, 8192, 8192, 128, True): [DYN], (1, 8, 2, 8192, 8192, 128, True): [DYN],
    (1, 8, 8, 4096, 4096, 96, True): [DYN_PP], (2, 4, 4, 3000, 3000, 80, True): [DYN_PP],
    (1, 16, 16, 4096, 4096, 128, True): [],
}
# Run 8 (CELLS=8): run 7 read FA4 0.85-0.96x of us... ahead of us at B*H <= 8, D=128 causal, at
# 587-655 TF where our standard preset's causal cells read 567-607 and FA4's own 545-588: FA4 does
# better with few heads, we do worse. Hypothesis: with few heads ~16 CTAs per head stream the same
# K/V tiles in lockstep from tile 0 (FA4 walks each block's keys from its diagonal down). Test:
# each item's unmasked tiles start at a point of their own (``Config.rotate``, producer only).
# The knob went after the run (no gain); 8-rotate/rotate.patch restores it.
if "rotate" in {f.name for f in dataclasses.fields(C)}:
    ROT = dataclasses.replace(DYN, rotate=True)
    RUN8 = {
        (1, 8, 8, 4096, 4096, 128, True): [DYN, ROT], (1, 4, 4, 8192, 8192, 128, True): [DYN, ROT],
        (1, 8, 8, 3000, 3000, 128, True): [DYN, ROT], (4, 16, 16, 4096, 4096, 128, True): [ROT],
        (1, 8, 8, 4096, 4096, 128, False): [dataclasses.replace(DYN, rotate=True)],
        (2, 8, 8, 8192, 8192, 64, True): [C(192, 128, 12, 3, True, True, True, rotate=True)],
    }
else:
    RUN8 = {}
# Run 9 (CELLS=9): pairs of whole items (``causal_plan.pair_rows``: a long item and its short
# partner per CTA, no cut) where 7/8 to all of the SMs get a pair: auto (pairs at B*H <= 8)
# against the dynamic schedule, and PLAN (pairs) at B*H = 16.
RUN9 = {
    (1, 8, 8, 4096, 4096, 128, True): [DYN], (1, 4, 4, 8192, 8192, 128, True): [DYN],
    (1, 2, 2, 16384, 16384, 128, True): [DYN], (1, 8, 2, 4096, 4096, 128, True): [DYN],
    (1, 8, 8, 3968, 3968, 128, True): [DYN], (1, 8, 8, 4096, 4096, 96, True): [DYN_PP],
    (1, 16, 16, 2048, 2048, 128, True): [PLAN], (2, 8, 8, 2000, 2000, 128, True): [PLAN],
}
# Run 10 (CELLS=10): run 9 read pairs 1.14-1.26x over the dynamic schedule where one pair a CTA
# fills 7/8 of the SMs or more. Several pairs a CTA (``pair_rows``: as many as it takes to seat
# them), up to the standard preset's eight; PLAN is pairs wherever they fit.
RUN10 = {
    (1, 8, 8, 8192, 8192, 128, True): [DYN], (1, 16, 16, 4096, 4096, 128, True): [PLAN],
    (2, 8, 8, 8192, 8192, 128, True): [PLAN], (4, 16, 16, 4096, 4096, 128, True): [PLAN],
    (8, 16, 16, 2048, 2048, 128, True): [PLAN], (2, 16, 16, 8192, 8192, 128, True): [PLAN],
    (1, 32, 8, 4096, 4096, 128, True): [PLAN], (2, 8, 8, 4096, 4096, 96, True): [PLAN_PP],
}
# Run 12 (CELLS=12): the shipped plans at D=128 with ping-pong turns (the dynamic causal schedule
# read turns within noise, v8; a pair's two items might overlap better with them).
RUN12 = {
    (1, 8, 8, 4096, 4096, 128, True): [PLAN_PP], (1, 4, 4, 8192, 8192, 128, True): [PLAN_PP],
    (1, 16, 16, 2048, 2048, 128, True): [PLAN_PP], (1, 8, 8, 3000, 3000, 128, True): [PLAN_PP],
    (1, 8, 2, 4096, 4096, 128, True): [PLAN_PP],
}
# Run 13 (CELLS=13): auto with turns on the plans, against the plans without them and the
# dynamic schedule, on cells run 12 did not cover (two pairs a CTA, cuts at B*H <= 8).
RUN13 = {
    (1, 8, 8, 8192, 8192, 128, True): [PLAN, DYN], (1, 4, 4, 6000, 6000, 128, True): [PLAN, DYN],
    (1, 8, 8, 2112, 2112, 128, True): [PLAN, DYN], (1, 2, 2, 16384, 16384, 128, True): [PLAN, DYN],
}
# Run 15 (CELLS=15): pairs that leave more SMs idle (PAIRS_FILL 0.7: 96 CTAs of 132 where 192
# pairs take two each, or one each), against auto (cuts, or the dynamic schedule at B*H = 16),
# with turns; the odd preset's B=2 H=8 S=3000 among them.
PAIRS70 = (PLAN_PP, 0.7)
RUN15 = {
    (1, 8, 8, 3000, 3000, 128, True): [PAIRS70], (2, 8, 8, 3000, 3000, 128, True): [PAIRS70, PLAN_PP],
    (2, 8, 8, 3000, 3000, 96, True): [PAIRS70], (1, 8, 8, 6144, 6144, 128, True): [PAIRS70],
}
CELLS = {"1": RUN1, "4": RUN4, "5": RUN5, "8": RUN8, "9": RUN9, "10": RUN10, "12": RUN12,
         "13": RUN13, "15": RUN15}[os.environ.get("CELLS", "1")]
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
        sets = [(torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16, generator=g),
                 *(torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2)))
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
            if isinstance(cfg, tuple):  # (config, PAIRS_FILL for its plan)
                cfg, fill = cfg
            name = label(cfg) + (f" pairs{fill}" if fill else "")
            if gf.constraints(cfg, d):
                log.write(f"{case} {name}: {gf.constraints(cfg, d)}\n")
                continue
            if fill:
                kept, causal_plan.PAIRS_FILL = causal_plan.PAIRS_FILL, fill
                causal_plan._TABLES.clear()
            run = gf.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=True)
            if fill:
                causal_plan.PAIRS_FILL = kept
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
