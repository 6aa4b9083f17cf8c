"""The slot model behind call 6's prediction (order.py): stage 1 at D=128 S=512 causal (B*H =
512 heads, 8 query blocks of 64 rows each, block m costing 2(m + 1) key tiles of 32 plus a
fixed 2 for Q's load and O's store), on 132 SMs of 4 CTA slots. An SM shares its throughput
among its resident CTAs (EFF: the SM's throughput with k of them). It predicted the
persistent kernels' order over chunks of >= 64 heads 5-7% ahead of each head's blocks in turn;
the GPU read it 8-18% behind (L2 traffic, which the model leaves out). Runs on a CPU."""

OVERHEAD = 2.0
EFFS = {"as run": {1: 0.45, 2: 0.8, 3: 0.95, 4: 1.0}, "flat": {1: 1, 2: 1, 3: 1, 4: 1},
        "steep": {1: 0.3, 2: 0.6, 3: 0.85, 4: 1.0}}


def makespan(order, eff, slots=4, sms=132):
    queue, qi, t = list(order), 0, 0.0
    sm = [[] for _ in range(sms)]
    for _ in range(slots):
        for i in range(sms):
            if qi < len(queue):
                sm[i].append(queue[qi] + OVERHEAD)
                qi += 1
    while any(sm):
        dt = min(min(a) / (eff[len(a)] / len(a)) for a in sm if a)
        t += dt
        for i, a in enumerate(sm):
            if a:
                rate = eff[len(a)] / len(a)
                left = [x - dt * rate for x in a]
                sm[i] = [x for x in left if x > 1e-9]
                for _ in range(len(left) - len(sm[i])):
                    if qi < len(queue):
                        sm[i].append(queue[qi] + OVERHEAD)
                        qi += 1
    return t


def orders(heads=512, blocks=8):
    cost = [2 * (blocks - j) for j in range(blocks)]  # longest first within a head
    yield "each head in turn", [c for _ in range(heads) for c in cost]
    for chunk in (16, 32, 64, 128, heads):
        out = []
        for first in range(0, heads, chunk):
            for c in cost:
                out += [c] * min(chunk, heads - first)
        yield f"chunks of {chunk} heads", out


if __name__ == "__main__":
    for name, eff in EFFS.items():
        for label, order in orders():
            print(f"{name:7s} {label:20s} {makespan(order, eff):7.1f}")
