"""H100: paired A/B of Gluon configs at the seed shape with inputs rotated past L2, as the
bench times them (NSETS input sets, default 48 x 2-4 MB > 2 x 50 MB L2; abx.py's four sets
stay L2-resident). Ratio = shipped time / variant time per round (> 1: variant faster).
CUDA graphs of ~ROUND_MS of back-to-back calls, round robin, order reversed every other
round; outputs NaN-poisoned, then first and last heads judged against the fp64 reference.
CASES: Python expression, a list of (B, H, S, D, causal, [Config kwargs, ...])."""
import json, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(__file__), "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import ends, graph, replay_us  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402
from flashcore import dispatch  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402

ROUND_MS, ROUNDS = float(os.environ.get("ROUND_MS", "30")), int(os.environ.get("ROUNDS", "31"))
NSETS = int(os.environ.get("NSETS", "48"))
DT = {"bf16": torch.bfloat16, "fp16": torch.float16}[os.environ.get("DTYPE", "fp16")]
CASES = eval(os.environ["CASES"])


def name(c):
    return f"{c.block_m}x{c.block_n}s{c.num_stages}" + ("-lazy" if c.lazy_rescale else "")


rows = []
for b, h, s, d, causal, others in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DT) for _ in range(3)) for _ in range(NSETS)]
    shipped = dispatch.kernel_config("gluon", 90, DT, d, causal, s, s, b * h)
    variants = [shipped] + [gf.Config(**o) for o in others]
    graphs, oks = [], []
    for cfg in variants:
        run = gf.prepare(*sets[0], causal, d ** -0.5, cfg)
        out, lse = run(*sets[1])
        out.fill_(float("nan")); lse.fill_(float("nan"))
        out, lse = run(*sets[1])
        q, k, v = sets[1]
        oks.append(all(judge(o, qq, kk, vv, causal=causal, lse=ll).ok
                       for o, qq, kk, vv, ll in zip(ends(out), ends(q), ends(k), ends(v), ends(lse))))
        fn = lambda i, run=run: run(*sets[i % NSETS])
        one = replay_us(graph(fn, NSETS), NSETS)
        calls = max(NSETS, int(ROUND_MS * 1000 / one) // NSETS * NSETS)
        graphs.append((graph(fn, calls), calls))
    for g in graphs:
        replay_us(*g)
    n = len(graphs)
    times = [[] for _ in graphs]
    for r in range(ROUNDS):
        for i in (range(n) if r % 2 == 0 else reversed(range(n))):
            times[i].append(replay_us(*graphs[i]))
    med = lambda x: sorted(x)[len(x) // 2]
    case = f"B{b} H{h} S{s} D{d} {'causal' if causal else 'full'}"
    row = dict(case=case, dtype=str(DT), nsets=NSETS, configs=[c.as_dict() for c in variants], ok=oks,
               times=times, round_ms=ROUND_MS, rounds=ROUNDS)
    text = f"{case:22s} shipped {name(variants[0]):14s} {med(times[0]):7.2f}"
    for c, t in zip(variants[1:], times[1:]):
        ratios = sorted(t0 / t1 for t0, t1 in zip(times[0], t))
        row.setdefault("summary", []).append(dict(config=c.as_dict(), us=med(t), ratio=med(ratios), lo=ratios[0],
                                                  hi=ratios[-1]))
        text += f" | {name(c)} {med(t):7.2f} {med(ratios):.3f} [{ratios[0]:.3f},{ratios[-1]:.3f}]"
    rows.append(row)
    print(text + ("" if all(oks) else " FAIL " + str(oks)), flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("TAG", "seed_ab") + ".json"), "w"),
          indent=1)
