"""H100: the Gluon kernels of this working tree against the same configs built from an earlier
gluon_fwd (``baseline.py`` beside this script; not committed: write it before the device call
with ``git show ed92a14:src/flashcore/kernels/gluon_fwd.py > .../scripts/baseline.py``, whose
kernel code is 393b469's too). Shipped configs (dispatch). Paired CUDA-graph rounds (~ROUND_MS of
calls on 4 rotating input sets, ROUNDS, order reversed every other round); ratio = baseline time
/ this tree's time (> 1: this tree faster). Outputs and LSE poisoned, first and last heads judged
for both.

SET names the change under test and its cells:
- one-loop (4-one-loop/, the tree with one-loop.patch): masked tiles in the unmasked loop behind a
  uniform branch, a finite floor for the running max.
- first-tile (9-first-tile-mask/): the peeled first KV tile masked only where the loop would
  mask it (n_full == 0). The confirm run took ONLY=0,1,8,10,11 with 61 rounds."""
import json, os, sys, importlib.util
import torch
from flashcore.kernels import gluon_fwd as gf
from flashcore import dispatch
from flashcore.bench.correctness import judge
from timing import ends, graph, median, paired_rounds, replay_us


def load(name):
    spec = importlib.util.spec_from_file_location(f"flashcore.kernels.{name}",
                                                  os.path.join(os.path.dirname(os.path.abspath(__file__)), f"{name}.py"))
    m = importlib.util.module_from_spec(spec); sys.modules[spec.name] = m; spec.loader.exec_module(m); return m


old = load("baseline")
ROUND_MS, ROUNDS = float(os.environ.get("ROUND_MS", "60")), int(os.environ.get("ROUNDS", "31"))
DT = {"bf16": torch.bfloat16, "fp16": torch.float16}
SET = os.environ.get("SET", "first-tile")
# (B, Hq, Hkv, S, D, causal, dtype)
CASES = {
    "one-loop": [(2, 32, 32, 8192, 64, True, "bf16"), (1, 32, 32, 16384, 64, True, "bf16"),
                 (2, 32, 32, 8192, 64, False, "bf16"), (4, 32, 32, 4096, 64, True, "bf16"),
                 (2, 16, 16, 8192, 128, False, "bf16"), (4, 16, 16, 4096, 128, True, "bf16"),
                 (32, 16, 16, 512, 128, True, "bf16"), (16, 16, 16, 1024, 128, False, "bf16"),
                 (1, 8, 8, 512, 64, False, "fp16")],
    "first-tile": [(32, 16, 16, 512, 128, False, "bf16"), (16, 16, 16, 1024, 128, False, "bf16"),
                   (32, 32, 32, 512, 64, False, "bf16"), (16, 32, 32, 1024, 64, False, "bf16"),
                   (1, 8, 8, 512, 64, False, "fp16"), (1, 8, 8, 512, 64, True, "fp16"), (2, 8, 8, 512, 64, False, "fp16"),
                   (32, 16, 16, 512, 128, True, "bf16"), (2, 32, 32, 8192, 64, True, "bf16"),
                   (2, 16, 16, 8192, 128, False, "bf16"), (4, 16, 16, 4096, 128, True, "bf16"),
                   (2, 32, 32, 8192, 64, False, "bf16")],
}[SET]
if os.environ.get("ONLY"):
    CASES = [CASES[int(i)] for i in os.environ["ONLY"].split(",")]


rows = []
for b, h, hk, s, d, causal, dt in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, hh, s, d, device="cuda", dtype=DT[dt]) for hh in (h, hk, hk)) for _ in range(4)]
    cfg = dispatch.kernel_config("gluon", 90, DT[dt], d, causal, s, s, b * h)
    graphs, oks = [], []
    for mod in (old, gf):
        run = mod.prepare(*sets[0], causal, d ** -0.5, mod.Config(**cfg.as_dict()))
        out, lse = run(*sets[1])
        out.fill_(float("nan")); lse.fill_(float("nan"))
        out, lse = run(*sets[1])
        q, k, v = sets[1]
        oks.append(all(judge(o, qq, kk, vv, causal=causal, lse=ll).ok
                       for o, qq, kk, vv, ll in zip(ends(out), ends(q), ends(k), ends(v), ends(lse))))
        fn = lambda i, run=run: run(*sets[i % 4])
        one = replay_us(graph(fn, 8), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        graphs.append((graph(fn, calls), calls))
    for g in graphs:
        replay_us(*g)
    times = paired_rounds(graphs, ROUNDS)
    med = median
    ratios = sorted(t0 / t1 for t0, t1 in zip(*times))
    case = f"B{b} H{h}/{hk} S{s} D{d} {'causal' if causal else 'full'} {dt}"
    rows.append(dict(case=case, config=cfg.as_dict(), ok=oks, times=times, ratio=med(ratios), lo=ratios[0],
                     hi=ratios[-1], round_ms=ROUND_MS, rounds=ROUNDS))
    print(f"{case:34s} {cfg.block_m}x{cfg.block_n}s{cfg.num_stages}{' ws' if cfg.warp_specialize else ''}"
          f"{' p' if cfg.persistent else ''}  old {med(times[0]):9.2f}  new {med(times[1]):9.2f}  "
          f"{med(ratios):.3f} [{ratios[0]:.3f},{ratios[-1]:.3f}]" + ("" if all(oks) else f" FAIL {oks}"), flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("TAG", SET) + ".json"), "w"), indent=1)
