"""Run 9: D=256 decode and chunked prefill, where run 8's bench read flashcore at 0.81-0.87x of
SDPA (decode on the portable kernel, 2 key splits under split_kv_for's one-wave rule; chunked
prefill Sq=512 Sk=8k on Gluon stage 1's 64x32). Candidates against auto, cuDNN and SDPA flash in
paired CUDA-graph rounds (ratio = cuDNN's time / the candidate's), after checks against the fp64
reference. D=128 decode is the control: the one-wave rule was measured there (0.98-1.04 of cuDNN).
Prediction: decode is memory-bound (D=256 B=8 Hkv=8 Sk=8k: 268 MB, 89 us at 3 TB/s); more
splits give each SM more loads in flight, so 4-8 splits should read ~180 us (SDPA flash 183).
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
from flashcore.kernels import triton_fwd as tf  # noqa: E402

OUT = os.environ.get("OUT", ".")
ROUNDS, ROUND_MS = 11, 30.0


def sdpa(backend):
    def fn(q, k, v):
        with sdpa_kernel([backend]):
            return F.scaled_dot_product_attention(q, k, v, enable_gqa=q.shape[1] != k.shape[1])
    return fn


def decode(d):
    return [(f"split {s}", tf, tf.Config(16, 32, 4, 2, split_kv=s, pack_gqa=True)) for s in (1, 2, 4, 8, 16)] + \
           [(f"split {s} n64", tf, tf.Config(16, 64, 4, 2, split_kv=s, pack_gqa=True)) for s in (4, 8)]


CHUNKED = [("ws 128x64", gf, gf.Config(128, 64, 8, 2, True)), ("64x64 s2", gf, gf.Config(64, 64, 4, 2)),
           ("64x32 s2 lazy", gf, gf.Config(64, 32, 4, 2))]
CELLS = [(8, 16, 8, 1, 8192, 256, decode(256)), (1, 16, 8, 1, 32768, 256, decode(256)),
         (8, 32, 8, 1, 8192, 128, decode(128)), (1, 16, 8, 512, 8192, 256, CHUNKED)]


def main():
    rows, log = [], open(os.path.join(OUT, "rounds.log"), "w")
    for b, hq, hkv, sq, sk, d, cands in CELLS:
        g = torch.Generator(device="cuda").manual_seed(sq + sk + d)
        sets = [(torch.randn(b, hq, sq, d, device="cuda", dtype=torch.bfloat16, generator=g),
                 *(torch.randn(b, hkv, sk, d, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2)))
                for _ in range(2)]
        fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v), "cudnn": sdpa(SDPBackend.CUDNN_ATTENTION),
               "flash": sdpa(SDPBackend.FLASH_ATTENTION)}
        for label, mod, cfg in cands:
            q, k, v = sets[0]
            out = torch.full_like(q, float("nan"))
            try:
                run = mod.prepare(q, k, v, False, d ** -0.5, cfg, store_lse=False)
                run(q, k, v, out=out)
                torch.cuda.synchronize()
                ok = judge(out, q, k, v, causal=False).ok
            except Exception as e:  # noqa: BLE001
                ok = False
                log.write(f"{label}: {type(e).__name__}: {str(e)[:200]}\n")
            log.write(f"B{b} H{hq}/{hkv} Sq{sq} Sk{sk} D{d} {label} {cfg}: {'ok' if ok else 'FAIL'}\n")
            if ok:
                fns[label] = lambda q, k, v, run=run: run(q, k, v)
        names = list(fns)
        graphs = []
        for name in names:
            fn = (lambda i, f=fns[name]: f(*sets[i % 2]))
            one = replay_us(graph(fn, 4), 4)
            calls = max(4, int(ROUND_MS * 1000 / one))
            graphs.append((graph(fn, calls), calls))
        times = paired_rounds(graphs, ROUNDS)
        ref = times[names.index("cudnn")]
        line = f"B{b} H{hq}/{hkv} Sq{sq} Sk{sk} D{d}"
        row = dict(case=line, providers=[])
        for name, t in zip(names, times):
            r = sorted(a / x for a, x in zip(ref, t))
            row["providers"].append(dict(name=name, us=median(t), vs_cudnn=median(r), lo=r[0], hi=r[-1], times=t))
            line += f" | {name} {median(t):.1f} us {median(r):.2f}x"
        rows.append(row)
        print(line, flush=True)
        log.write(line + "\n")
        del graphs, sets
        torch.cuda.empty_cache()
    json.dump(dict(rows=rows, rounds=ROUNDS, round_ms=ROUND_MS, device=torch.cuda.get_device_name()),
              open(os.path.join(OUT, "rounds.json"), "w"), indent=1)


if __name__ == "__main__":
    main()
