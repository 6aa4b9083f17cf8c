"""H100 host: eager calls of a prepared plan, back to back; wall time per call (host-bound
when the kernel is shorter). The key-split plan's buffers as shipped (launch.split_buffers:
one capture check and stream lookup) against separate stream_workspace + stream_counters
calls (as at fd08d60)."""
import time, torch
from flashcore.kernels import gluon_fwd as gf, launch

def per_call(run, args, n=3000):
    for _ in range(200):
        run(*args)
    torch.cuda.synchronize()
    t = time.perf_counter()
    for _ in range(n):
        run(*args)
    torch.cuda.synchronize()
    return (time.perf_counter() - t) / n * 1e6

cells = [("seed B1 S512 D64 stage1", (1, 8, 512, 512, 64), gf.Config(64, 128, 4, 2)),
         ("B1 Sq256 Sk4k D64 ctas4", (1, 8, 256, 4096, 64), gf.Config(64, 128, 4, 2, kv_ctas=4))]
real = gf.split_buffers
separate = lambda tickets, floats, device: (tuple(launch.stream_workspace(n, device, slot) for slot, n in enumerate(floats)),
                                            launch.stream_counters(tickets, device))
for name, (b, h, sq, sk, d), cfg in cells:
    q = torch.randn(b, h, sq, d, device="cuda", dtype=torch.float16)
    k, v = (torch.randn(b, h, sk, d, device="cuda", dtype=torch.float16) for _ in range(2))
    run = gf.prepare(q, k, v, False, 0.125, cfg, store_lse=False)
    res = []
    for rep in range(3):
        gf.split_buffers = real
        a = per_call(run, (q, k, v))
        gf.split_buffers = separate
        e = per_call(run, (q, k, v))
        res.append((a, e))
    gf.split_buffers = real
    print(f"{name:28s} split_buffers " + " ".join(f"{a:6.1f}" for a, _ in res)
          + " us | separate lookups " + " ".join(f"{e:6.1f}" for _, e in res) + " us", flush=True)
