"""H100: an unsplit CTA folds each warpgroup's partial in as soon as that warpgroup has staged
it (one named barrier per partial), instead of waiting on one barrier for all of them.

Prediction (kernel log v57). Call 12's trace of four warpgroups at B=2 full: the warpgroups'
last P @ V end at 3.94 / 4.42 / 4.86 / 5.02 us (their tiles land one after another), and
warpgroup 0 holds the merged partials only at 5.57 (~0.12-0.16 us per partial, all of them
after the last). Folding them in as they come leaves one merge on the tail: four warpgroups
~0.25-0.3 us faster, two warpgroups even (one partial either way).

The previous merge runs as a copy of cute_fwd.py with the old block put back (OLD below, the
code at c6ee928), loaded as flashcore.kernels.cute_fwd_prev. Checks the tree's builds first
(seed_cells.CHECKS, fp64 reference, NaN-poisoned O and LSE), then paired CUDA-graph rounds
over 48 input sets; ratio = the first variant's time / each variant's."""
import importlib.util
import json
import os
import sys
import tempfile

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-cute-dispatch/scripts"))
from timing import graph, median, paired_rounds, replay_us  # noqa: E402
from seed_cells import CHECKS  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402
from flashcore.kernels import cute_fwd as cf  # noqa: E402

OUT = os.environ.get("OUT", ".")
NSETS, ROUNDS, ROUND_MS = 48, 15, 30.0
NEW = '''                    else:
                        # One CTA: each partial is folded in as soon as its warpgroup has staged
                        # it, so only the last one's merge sits on the tail.
                        for p in cutlass.range_constexpr(self.parts):
                            cute.arch.barrier(barrier_id=PART_BARRIER + p, number_of_threads=2 * THREADS)
                            self._merge_rows(acc_o, row_max, row_sum, parts, ltid, p, 1)'''
OLD = '''                    else:
                        cute.arch.barrier(barrier_id=1, number_of_threads=self.threads)
                        self._merge_rows(acc_o, row_max, row_sum, parts, ltid, 0, self.parts)'''
NEW_ARRIVE = "cute.arch.barrier_arrive(barrier_id=PART_BARRIER + wg - 1, number_of_threads=2 * THREADS)"
OLD_ARRIVE = "cute.arch.barrier_arrive(barrier_id=1, number_of_threads=self.threads)"


def previous_module():
    src = open(cf.__file__).read()
    assert src.count(NEW) == 1 and src.count(NEW_ARRIVE) == 1
    path = os.path.join(tempfile.mkdtemp(), "cute_fwd_prev.py")
    open(path, "w").write(src.replace(NEW, OLD).replace(NEW_ARRIVE, OLD_ARRIVE))
    spec = importlib.util.spec_from_file_location("flashcore.kernels.cute_fwd_prev", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    return mod


def main():
    log = open(os.path.join(OUT, "merge.log"), "w")

    def say(s):
        print(s, flush=True); log.write(s + "\n"); log.flush()

    prev = previous_module()
    C = cf.Config
    W2, W4 = C(128, 1, 4, wgs=2, interleave=True), C(128, 1, 4, wgs=4)
    fails = 0
    for cfg in (W2, W4, C(128, 1, 4, wgs=2)):
        for b, h, hk, sq, sk, d in CHECKS:
            for causal in (False, True):
                if cf.constraints(cfg, d, sk):
                    continue
                g = torch.Generator(device="cuda").manual_seed(sq * 3 + sk + causal)
                q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.float16, generator=g)
                k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(2))
                out, lse = torch.full_like(q, float("nan")), torch.full(q.shape[:3], float("nan"), device="cuda")
                cf.forward(q, k, v, causal, d ** -0.5, cfg, out, lse)
                torch.cuda.synchronize()
                ver = judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse)
                fails += not ver.ok
                say(f"check {cfg} B{b} H{h}/{hk} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'}: "
                    f"{'ok' if ver.ok else 'FAIL'} err {ver.max_abs_err:.2e}/{ver.budget_abs:.2e} {ver.reason}")
    say(f"checks: {fails} failed")
    cells = {False: [(prev, W2), (cf, W2), (prev, W4), (cf, W4)],
             True: [(prev, W4), (cf, W4), (prev, C(128, 1, 4, wgs=2)), (cf, C(128, 1, 4, wgs=2))]}
    rows = []
    for causal, variants in cells.items():
        g = torch.Generator(device="cuda").manual_seed(2)
        sets = [tuple(torch.randn(2, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
                for _ in range(NSETS)]
        graphs = []
        for mod, c in variants:
            fn = lambda i, mod=mod, c=c: mod.forward(*sets[i % NSETS], causal, 0.125, c)  # noqa: E731
            one = replay_us(graph(fn, NSETS), NSETS)
            calls = max(NSETS, int(ROUND_MS * 1000 / one) // NSETS * NSETS)
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        line = f"B2 {'causal' if causal else 'full'}:"
        row = dict(case=f"B2 H8 S512 D64 {'causal' if causal else 'full'} fp16", variants=[])
        for (mod, c), t in zip(variants, times):
            r = sorted(a / x for a, x in zip(times[0], t))
            tag = f"{'prev' if mod is prev else 'tree'} w{c.wgs}{' il' if c.interleave else ''}"
            line += f" | {tag} {median(t):.2f} us {median(r):.3f} [{r[0]:.3f}, {r[-1]:.3f}]"
            row["variants"].append(dict(variant=tag, config=str(c), us=median(t), ratio=median(r), times=t))
        rows.append(row)
        say(line)
    json.dump(dict(rows=rows, nsets=NSETS, rounds=ROUNDS, device=torch.cuda.get_device_name(), torch=torch.__version__),
              open(os.path.join(OUT, "merge.json"), "w"), indent=1)


main()
