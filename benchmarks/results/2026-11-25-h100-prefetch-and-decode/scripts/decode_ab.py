"""H100: short GQA queries (decode), packed against what ran before and against SDPA, in paired
CUDA-graph rounds. Per case: `unpacked` is the portable kernel's config for group=1 (the old
heuristic's: one block per query head), `packed` the new heuristic's (one block per KV head),
`gluon` the Gluon heuristic's config where Gluon takes the call (what auto ran before when the
grid was not small), and SDPA's cuDNN / flash / efficient backends with enable_gqa. NSETS input
sets rotated (K/V caches of a few tens of MB: past L2 at 4 sets); outputs poisoned and judged on
the first and last (batch, head) against the fp64 reference. Ratios: unpacked (or the first
provider) time / each provider's time per round, median [min, max].
BASE=path: an earlier triton_fwd.py (``git show REV:src/flashcore/kernels/triton_fwd.py``, not
committed) runs the packed config first as `base`, then this tree's, then SDPA (no unpacked,
no Gluon): ratios are then base time / this tree's."""
import dataclasses, importlib.util, json, os, sys
import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import ends, graph, median, paired_rounds, replay_us  # noqa: E402
from flashcore import dispatch  # noqa: E402
from flashcore.kernels import gluon_fwd, triton_fwd  # noqa: E402
from flashcore.bench.correctness import judge  # noqa: E402

ROUND_MS, ROUNDS, NSETS = float(os.environ.get("ROUND_MS", "40")), int(os.environ.get("ROUNDS", "15")), 4
DT = torch.bfloat16
CASES = eval(os.environ["CASES"]) if "CASES" in os.environ else [
    # (B, Hq, Hkv, Sq, Sk, D, causal)
    (1, 32, 8, 1, 8192, 128, False), (1, 32, 8, 1, 32768, 128, False), (4, 32, 8, 1, 8192, 128, False),
    (8, 32, 8, 1, 4096, 128, False), (32, 32, 8, 1, 2048, 128, False), (1, 64, 8, 1, 8192, 128, False),
    (1, 32, 4, 1, 8192, 64, False), (1, 32, 8, 4, 8192, 128, True), (2, 32, 8, 16, 4096, 128, True),
    (1, 8, 8, 1, 8192, 128, False),
]
SDPA = {"cudnn": SDPBackend.CUDNN_ATTENTION, "flash": SDPBackend.FLASH_ATTENTION,
        "efficient": SDPBackend.EFFICIENT_ATTENTION}


def portable(cfg, module=triton_fwd):
    return lambda q, k, v, causal: module.prepare(q, k, v, causal, q.shape[-1] ** -0.5, module.Config(**cfg.as_dict()))


def load_base(path):
    spec = importlib.util.spec_from_file_location("flashcore.kernels.triton_fwd_base", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = module
    spec.loader.exec_module(module)
    return module


BASE = load_base(os.environ["BASE"]) if os.environ.get("BASE") else None


def sdpa(backend):
    def make(q, k, v, causal):
        def run(q, k, v):
            with sdpa_kernel(backend):
                return F.scaled_dot_product_attention(q, k, v, is_causal=causal, enable_gqa=True), None
        run(q, k, v)  # raises if the backend rejects the call
        return run
    return make


rows = []
for b, hq, hkv, sq, sk, d, causal in CASES:
    torch.manual_seed(0)
    sets = [tuple(torch.randn(b, h, s, d, device="cuda", dtype=DT) for h, s in ((hq, sq), (hkv, sk), (hkv, sk)))
            for _ in range(NSETS)]
    group = hq // hkv
    old = triton_fwd.heuristic_config(90, d, 2, causal, sq, sk, b * hq)
    new = triton_fwd.heuristic_config(90, d, 2, causal, sq, sk, b * hq, group)
    makers = {"unpacked": portable(old), "packed": portable(new)}
    if BASE is not None:
        makers = {"base": portable(new, BASE), "packed": portable(new)}
    elif gluon_fwd.supports(*sets[0], 90) is None:
        gcfg = dispatch.kernel_config("gluon", 90, DT, d, causal, sq, sk, b * hq)
        makers["gluon"] = lambda q, k, v, c, g=gcfg: gluon_fwd.prepare(q, k, v, c, d ** -0.5, g)
    if not causal or sq == sk:  # SDPA's causal mask is top-left aligned: only Sq == Sk compares
        makers.update({f"sdpa-{n}": sdpa(be) for n, be in SDPA.items()})
    names, graphs, oks, notes = [], [], [], {}
    for name, make in makers.items():
        try:
            run = make(*sets[0], causal)
        except Exception as exc:  # noqa: BLE001 - a peer that rejects the call is noted, not fatal
            notes[name] = f"{type(exc).__name__}: {str(exc)[:120]}"
            continue
        out, lse = run(*sets[1])
        out.fill_(float("nan"))
        out, lse = run(*sets[1])
        q, k, v = sets[1]
        kk, vv = (t.repeat_interleave(group, dim=1) for t in (k, v))
        lses = ends(lse) if lse is not None else (None, None)
        oks.append(all(judge(o, a, bb, c, causal=causal, lse=l).ok
                       for o, a, bb, c, l in zip(ends(out), ends(q), ends(kk), ends(vv), lses)))
        fn = lambda i, run=run: run(*sets[i % NSETS])
        one = replay_us(graph(fn, 8), 8)
        calls = max(8, int(ROUND_MS * 1000 / one))
        names.append(name)
        graphs.append((graph(fn, calls), calls))
    times = paired_rounds(graphs, ROUNDS)
    med = median
    case = f"B{b} H{hq}/{hkv} Sq{sq} Sk{sk} D{d} {'causal' if causal else 'full'}"
    text = f"{case:38s}"
    summary = {}
    for n, t in zip(names, times):
        ratios = sorted(a / c for a, c in zip(times[0], t))
        summary[n] = dict(us=med(t), ratio=med(ratios), lo=ratios[0], hi=ratios[-1])
        text += f" | {n} {med(t):7.2f}" + (f" {med(ratios):.2f}" if n != names[0] else "")
    rows.append(dict(case=case, old=old.as_dict(), new=new.as_dict(), providers=names, ok=oks, times=times,
                     summary=summary, notes=notes, round_ms=ROUND_MS, rounds=ROUNDS, nsets=NSETS))
    print(text + ("" if all(oks) else f" FAIL {dict(zip(names, oks))}"), flush=True)
    del graphs
json.dump(rows, open(os.path.join(os.environ.get("OUT", "."), os.environ.get("TAG", "decode") + ".json"), "w"),
          indent=1)
