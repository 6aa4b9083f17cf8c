"""H100: the seed's causal cell on the cluster kernel. The longest clusters alone (Sq=128,
Sk=512: rows 384-511) read 4.84 us, the whole causal grid 5.83: does launch order (longest
query blocks first) or one CTA per SM (shared memory padded past half the SM) close the gap?
Paired CUDA-graph rounds over NSETS input sets, a fresh output per call; ratio = Gluon's
(auto's) time / the variant's."""
import json, os, sys
import torch
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)),
                                "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, median, paired_rounds, replay_us
import flashcore
from flashcore.kernels import cute_fwd as cf

OUT = os.environ.get("OUT", ".")
NSETS, ROUNDS, ROUND_MS = 48, int(os.environ.get("ROUNDS", 15)), 30.0
log = open(os.path.join(OUT, "order.log"), "w")
C = cf.Config
VARIANTS = {
    (1, True): [C(128, 2, 2, longest_first=False), C(128, 2, 2), C(128, 2, 2, pad_kb=24, longest_first=False),
                C(128, 2, 2, pad_kb=24), C(128, 1, 4)],
    (1, False): [C(128, 2, 2), C(128, 2, 2, pad_kb=24)],
    (2, True): [C(128, 2, 2), C(128, 1, 4), C(128, 1, 4, longest_first=False)],
}
rows = []
for (b, causal), configs in VARIANTS.items():
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
        line += f" | s{c.split}t{c.tiles}{' lf' if c.longest_first else ''}{f' pad{c.pad_kb}' if c.pad_kb else ''} {median(t):.2f} {median(r):.3f} [{r[0]:.3f},{r[-1]:.3f}]"
    rows.append(row)
    print(line, flush=True); log.write(line + "\n"); log.flush()
json.dump(dict(rows=rows, nsets=NSETS, rounds=ROUNDS, device=torch.cuda.get_device_name(), torch=torch.__version__),
          open(os.path.join(OUT, "order.json"), "w"), indent=1)
