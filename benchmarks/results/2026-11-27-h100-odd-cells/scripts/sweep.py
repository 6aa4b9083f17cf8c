"""The cells where a peer still leads or ties (kernel log v45-v46): the odd preset's B=2 H=8
S=3000 (causal D=32 0.85x of FA4, D=80 / 96 0.92x; full 0.95-0.99x), the dims preset's D=48
S=4k causal (0.91x) and the standard preset's D=64 S=4k causal (0.98-1.02x). Each cell runs
auto (``flashcore.attention``) beside candidate configs of the Gluon kernel and the peers in one
rotation of paired CUDA-graph rounds. Every candidate is checked first against the fp64
reference on fresh inputs (Q, K, V independent; O and LSE poisoned with NaN before a rerun that
must give the same bits). Ratio = auto's time / this one's (> 1: this one is faster).

Set "api" separates v46's S=8k puzzle: auto through the API, the same config through
``prepare``, and the build before v46's skip (``baseline.py`` beside own_tiles.py).
    PYTHONPATH=$PWD/src[:<FA4 site>] SET=odd DTYPE=bf16 python <this script>"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
TURNS = os.path.join(HERE, "../../2026-11-26-h100-causal-turns/scripts")
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
sys.path.insert(0, TURNS)
from cells import label, sdpa  # noqa: E402
from timing import graph, median, paired_rounds, replay_us  # noqa: E402
from torch.nn.attention import SDPBackend  # noqa: E402

import flashcore  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

try:
    from flash_attn.cute import flash_attn_func as FA4
except ImportError:
    FA4 = None

OUT = os.environ.get("OUT", ".")
DTYPE = {"bf16": torch.bfloat16, "fp16": torch.float16}[os.environ.get("DTYPE", "bf16")]
ROUNDS, ROUND_MS = int(os.environ.get("ROUNDS", 11)), 30.0
C = gf.Config
STAGE1, STAGE1_64, STAGE1_S3 = C(64, 128, 4, 2), C(64, 64, 4, 2), C(64, 128, 4, 3)
W3, W3_S2 = C(192, 128, 12, 3, True, True, True), C(192, 128, 12, 2, True, True, True)
W3_SK = C(192, 128, 12, 3, True, True, True, stream_k=True)  # causal: a plan of its pieces
W2, W2_PP = C(128, 128, 8, 2, True, persistent=True), C(128, 128, 8, 2, True, True, True)
W2_PLAN = C(128, 128, 8, 2, True, True, True, stream_k=True)
W3_64, W2_64 = C(192, 64, 12, 2, True, True, True), C(128, 64, 8, 2, True, True, True)
PP, W3_NP = C(128, 128, 8, 2, True, True), C(192, 128, 12, 3, True, True)  # one CTA a block
PREPARED, BASELINE = "prepared", "baseline"
SETS = {
    "odd": {
        (2, 8, 3000, 32, True): [STAGE1_64, STAGE1_S3, W3, W3_S2, W3_SK, W2_PP],
        (2, 8, 3000, 80, True): [W2, W2_PLAN, W3_64, W2_64, STAGE1],
        (2, 8, 3000, 96, True): [W2, W2_PLAN, W3_64, W2_64, STAGE1],
        (2, 8, 3000, 32, False): [W3_SK, W3_S2, W2_PP, STAGE1],
        (2, 8, 3000, 96, False): [W2_PP, W3_64, W2_64],
    },
    "dims": {
        (4, 32, 4096, 48, True): [W3, W3_S2, STAGE1_64, STAGE1_S3, W2_PP],
        (4, 32, 4096, 64, True): [W3, W3_S2, STAGE1_S3, W2_PP, W2],
    },
    "api": {(2, 32, 8192, 64, True): [PREPARED, BASELINE]},
    # Run 4 (4-d48/): where D=48's causal rows gain from three warpgroups (run 2: 1.107 at S=4k), and D=32's
    "d48": {
        (16, 32, 1024, 48, True): [W3], (8, 32, 2048, 48, True): [W3], (4, 32, 4096, 48, True): [W3],
        (2, 32, 8192, 48, True): [STAGE1], (4, 32, 4096, 48, False): [STAGE1],
        (8, 64, 2048, 32, True): [W3, W3_SK], (4, 64, 4096, 32, True): [W3, W3_SK],
    },
    # Run 6 (6-d48-edges/): the rule's edges (D=40, few heads, a long row, B=1)
    "d48-edges": {
        (4, 32, 4096, 40, True): [W3], (2, 8, 3000, 48, True): [W3, W3_SK], (1, 32, 16384, 48, True): [STAGE1],
        (1, 16, 2048, 48, True): [W3], (2, 32, 1536, 48, True): [W3],
    },
    # Run 7 (7-d40/): D=40's stage 1 (run 6: 2.2x slower than three warpgroups) elsewhere; few heads at D=64
    "d40": {
        (4, 32, 4096, 40, False): [STAGE1], (16, 32, 1024, 40, True): [W3, STAGE1_64],
        (16, 32, 1024, 40, False): [W3], (4, 32, 4096, 56, True): [W3],
        (2, 8, 3000, 64, True): [W3, W3_SK], (1, 16, 2048, 64, True): [W3, W3_SK],
    },
    # Run 8 (8-unaligned/): rows not a multiple of 32 bytes on the other builds
    "unaligned": {
        (16, 16, 1024, 120, True): [W2_PP, W2], (32, 16, 512, 104, True): [W2_PP, C(64, 32, 4, 2)],
        (16, 16, 1024, 72, False): [], (4, 16, 4096, 120, True): [], (16, 64, 1024, 24, True): [W3],
        (32, 32, 512, 56, False): [W3], (32, 32, 512, 40, True): [W3],
    },
    # Run 10: one wave or less (the small grids keep stage 1 at every head dim) at 8 mod 16
    "small": {
        (1, 8, 512, 40, False): [PP, W3_NP], (1, 8, 512, 56, True): [PP, W3_NP], (2, 8, 1000, 40, True): [PP, W3_NP],
        (1, 8, 1024, 120, False): [PP], (1, 8, 512, 64, False): [PP, W3_NP],
    },
    # Run 14: a plan of pairs of 192-row items on the D=64 build, where causal_plan.pairs_each finds them
    # (one pair a CTA: 231-264 items; two: 461-528)
    "pairs": {
        (1, 16, 3000, 64, True): [W3_SK, W3], (4, 8, 1500, 64, True): [W3_SK, W3], (2, 8, 2900, 48, True): [W3_SK],
        (4, 8, 3000, 64, True): [W3_SK, W3], (2, 16, 3000, 64, True): [W3_SK], (2, 8, 3000, 64, True): [W3_SK],
        (2, 8, 3000, 32, True): [W3_SK],
    },
    # Run 12: the short causal cells the new rule still trails cuDNN on (11-bench-dims/)
    "short": {
        (16, 32, 1024, 40, True): [W2_PP, W3_S2, PP], (32, 32, 512, 40, True): [W2_PP, PP],
        (32, 16, 512, 104, True): [W2, W2_64, PP], (16, 16, 1024, 120, True): [W2, W2_64, PP],
    },
}
PEERS = [p for p in os.environ.get("PEERS", "fa4,cudnn").split(",") if p]


def checked(run, sets, causal, hq):
    ok = True
    for q, k, v in sets[1:]:
        out, lse = run(q, k, v)
        first = out.clone()
        out.fill_(float("nan")); lse.fill_(float("nan"))  # noqa: E702 poisoned: the rerun must write every value
        out, lse = run(q, k, v)
        torch.cuda.synchronize()
        n = min(2, hq)
        ok = ok and judge(out[:, :n], q[:, :n], k[:, :n], v[:, :n], causal=causal, lse=lse[:, :n]).ok
        ok = ok and torch.equal(out, first)
    return ok


def candidates(cands, sets, causal, d, case, log):
    fns = {}
    for cand in cands:
        mod, cfg = gf, cand
        if cand in (PREPARED, BASELINE):
            cfg = gf.heuristic_config(90, d, 2, causal, sets[0][0].shape[2], sets[0][1].shape[2],
                                      sets[0][0].shape[0] * sets[0][0].shape[1])
            if cand == BASELINE:
                from own_tiles import old as mod  # noqa: PLC0415 (needs baseline.py beside own_tiles.py)
                cfg = mod.Config(**cfg.as_dict())
        name = cand if isinstance(cand, str) else label(cfg)
        why = gf.constraints(cfg, d) if mod is gf else None
        if why:
            log.write(f"{case} {name}: {why}\n")
            continue
        run = mod.prepare(*sets[0], causal, d ** -0.5, cfg, store_lse=True)
        ok = checked(run, sets, causal, sets[0][0].shape[1])
        print(f"{case} {name}: {'ok' if ok else 'FAILED its check'}", flush=True)
        log.write(f"{case} {name}: {'ok' if ok else 'FAILED its check'}\n")
        if ok:
            fns[name] = lambda q, k, v, run=run: run(q, k, v)[0]
    return fns


def peers(sets, causal):
    fns = {}
    if "cudnn" in PEERS:
        fns["cudnn"] = sdpa(SDPBackend.CUDNN_ATTENTION, causal)
    if "fa4" in PEERS and FA4 is not None:
        bshd = {id(st[0]): tuple(t.transpose(1, 2).contiguous() for t in st) for st in sets}
        fns["fa4"] = lambda q, k, v: FA4(*bshd[id(q)], causal=causal)
    return fns


def cell_graphs(b, h, s, d, causal, cands, case, log):
    """The cell's three input sets, and per provider (auto, the peers, the candidates that pass
    their checks) its name and a CUDA graph of ROUND_MS of calls rotating the sets."""
    g = torch.Generator(device="cuda").manual_seed(s + d + causal)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DTYPE, generator=g) for _ in range(3))
            for _ in range(3)]
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=causal)}
    fns.update(peers(sets, causal))
    fns.update(candidates(cands, sets, causal, d, case, log))
    names, graphs = list(fns), []
    for name in names:
        fn = (lambda i, f=fns[name]: f(*sets[i % 3]))
        one = replay_us(graph(fn, 4), 4)
        calls = max(4, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    return sets, names, graphs


def main():
    rows, tag = [], f"{os.environ.get('SET', 'odd')}-{str(DTYPE)[6:]}"
    log = open(os.path.join(OUT, f"rounds-{tag}.log"), "w")
    for (b, h, s, d, causal), cands in SETS[os.environ.get("SET", "odd")].items():
        case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'} {str(DTYPE)[6:]}"
        auto_cfg = gf.heuristic_config(90, d, 2, causal, s, s, b * h)
        print(f"{case} auto: {label(auto_cfg)}", flush=True)
        log.write(f"{case} auto: {label(auto_cfg)}\n")
        sets, names, graphs = cell_graphs(b, h, s, d, causal, cands, case, log)
        times = paired_rounds(graphs, ROUNDS)
        flops = 4 * b * h * s * s * d / (2 if causal else 1)
        row, line = dict(case=case, auto=label(auto_cfg), providers=[]), case + "\n"
        for name, t in zip(names, times):
            r = sorted(a / x for a, x in zip(times[0], t))
            row["providers"].append(dict(name=name, us=median(t), tflops=flops / median(t) / 1e6, auto_over=median(r),
                                         lo=r[0], hi=r[-1], times=t))
            line += (f"   {name:28s} {median(t):8.1f} us {flops / median(t) / 1e6:5.0f} TF  auto/this "
                     f"{median(r):.3f} [{r[0]:.3f}, {r[-1]:.3f}]\n")
        rows.append(row)
        print(line, flush=True)
        log.write(line)
        log.flush()
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, dtype=str(DTYPE), device=torch.cuda.get_device_name(),
                   torch=torch.__version__, fa4=FA4 is not None), open(os.path.join(OUT, f"rounds-{tag}.json"), "w"),
              indent=1)


if __name__ == "__main__":
    main()
