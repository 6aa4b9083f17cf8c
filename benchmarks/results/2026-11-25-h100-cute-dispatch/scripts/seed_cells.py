"""Shared by wgs.py and rowsum.py: correctness of candidate cute_fwd configs on odd shapes,
then the seed's cells in paired CUDA-graph rounds against Gluon.

1. Correctness of the checked configs (fp64 reference, NaN-poisoned O and LSE), full and causal.
2. Paired CUDA-graph rounds over 48 input sets (past L2), a fresh output per call; ratio =
   Gluon's time / the variant's. Writes <name>.log and <name>.json to $OUT."""
import json, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us
import flashcore
from flashcore.bench.correctness import judge
from flashcore.kernels import cute_fwd as cf

OUT = os.environ.get("OUT", ".")
NSETS, ROUNDS, ROUND_MS = int(os.environ.get("NSETS", 48)), int(os.environ.get("ROUNDS", 15)), 30.0
CHECKS = [(1, 8, 8, 512, 512, 64), (2, 8, 8, 512, 512, 64), (1, 8, 8, 257, 257, 64), (1, 8, 2, 300, 500, 64),
          (1, 4, 4, 1, 512, 64), (2, 6, 3, 512, 384, 128)]


def run(name: str, cells: dict, checked) -> None:
    """``cells``: {(batch, causal): [Config, ...]}; ``checked(config)``: whether to check it."""
    log = open(os.path.join(OUT, f"{name}.log"), "w")

    def say(s):
        print(s, flush=True); log.write(s + "\n"); log.flush()

    fails = 0
    for cfg in sorted({c for cs in cells.values() for c in cs if checked(c)}, key=str):
        for b, h, hk, sq, sk, d in CHECKS:
            for causal in (False, True):
                if cf.constraints(cfg, d, sk):
                    continue
                g = torch.Generator(device="cuda").manual_seed(sq * 3 + sk + causal)
                q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.float16, generator=g)
                k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(2))
                out = torch.full_like(q, float("nan"))
                lse = torch.full(q.shape[:3], float("nan"), device="cuda")
                try:
                    cf.forward(q, k, v, causal, d ** -0.5, cfg, out, lse)
                    torch.cuda.synchronize()
                    ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
                    ok, msg = ver.ok, f"err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}"
                except Exception as e:  # noqa: BLE001
                    ok, msg = False, f"{type(e).__name__}: {str(e)[:300]}"
                fails += not ok
                say(f"check {cfg} B{b} H{h}/{hk} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'}: "
                    f"{'ok' if ok else 'FAIL'} {msg}")
    say(f"checks: {fails} failed")

    rows = []
    for (b, causal), configs in cells.items():
        g = torch.Generator(device="cuda").manual_seed(b)
        sets = [tuple(torch.randn(b, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
                for _ in range(NSETS)]
        fns = [lambda i: flashcore.attention(*sets[i % NSETS], causal=causal, backend="gluon")]
        fns += [lambda i, c=c: cf.forward(*sets[i % NSETS], causal, 0.125, c) for c in configs]
        graphs = []
        for fn in fns:
            one = replay_us(graph(fn, NSETS), NSETS)
            calls = max(NSETS, int(ROUND_MS * 1000 / one) // NSETS * NSETS)
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        line = f"B{b} {'causal' if causal else 'full'}: gluon {median(times[0]):.2f}us"
        row = dict(case=f"B{b} H8 S512 D64 {'causal' if causal else 'full'} fp16", gluon_us=median(times[0]),
                   gluon_times=times[0], variants=[])
        for c, t in zip(configs, times[1:]):
            r = sorted(a / x for a, x in zip(times[0], t))
            row["variants"].append(dict(config=str(c), us=median(t), ratio=median(r), lo=r[0], hi=r[-1], times=t))
            line += (f" | s{c.split}t{c.tiles}w{c.wgs}{' x' if c.exclusive else ''}{' rs' if getattr(c, 'mma_rowsum', False) else ''}{f' m{c.share}' if getattr(c, 'share', 1) > 1 else ''}"
                     f"{' bulk' if getattr(c, 'bulk_merge', False) else ''}{' il' if getattr(c, 'interleave', False) else ''}{' half' if getattr(c, 'halves', False) else ''}"
                     f" {median(t):.2f} {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]")
        rows.append(row)
        say(line)
    json.dump(dict(rows=rows, nsets=NSETS, rounds=ROUNDS, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, f"{name}.json"), "w"), indent=1)
