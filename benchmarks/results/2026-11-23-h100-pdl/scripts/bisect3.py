"""Two plans of one signature, each captured in a long graph (trig.py's flow without PDL)."""
import sys, torch
from flashcore import ops
n = int(sys.argv[1]); plans = int(sys.argv[2])
torch.manual_seed(0)
sets = [tuple(torch.randn(2, 8, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3)) for _ in range(4)]
graphs = []
for p in range(plans):
    run = ops.prepare_forward(*sets[0], False, 0.125, "auto", False)
    run(*sets[1]); torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(n):
            run(*sets[i % 4])
    graphs.append(g)
try:
    for r in range(3):
        for g in graphs:
            g.replay()
        torch.cuda.synchronize()
    print(n, plans, "ok")
except Exception as e:
    print(n, plans, "ERR", str(e).splitlines()[0])
