import sys, time
from flashcore.kernels.gluon_fwd import Config, constraints, smem_bytes, consumer_regs
from flashcore.profile.resources import compile_gluon_fwd, STANDARD_LAUNCH
cfgs = []
for d in (64, 128):
    for w in (int(x) for x in __import__("os").environ.get("WS","2 3 4").split()):
        for bn in (64, 128):
            for st in (1, 2):
                c = Config(64, bn, 4 * w, st, warp_specialize=True, split_kv=w)
                r = constraints(c, d)
                if r: print(d, w, bn, st, "skip:", r[:60]); continue
                cfgs.append((d, c))
only = sys.argv[1:] 
for d, c in cfgs:
    for dtype in ("fp16",):
        for causal in (False, True):
            t=time.time()
            rep = compile_gluon_fwd(d, dtype, causal, c, None)
            print(f"d{d} w{c.split_kv} bn{c.block_n} st{c.num_stages} {dtype} causal={causal}: regs {rep.registers}/{consumer_regs(c)} spill {rep.spill_bytes} smem {rep.shared_bytes} err {rep.error} ({time.time()-t:.0f}s)", flush=True)
