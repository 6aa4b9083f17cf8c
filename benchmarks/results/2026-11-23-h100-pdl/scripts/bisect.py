"""Which step of trig.py's flow breaks graph replays of plan launches (illegal address, with or without PDL)."""
import sys, torch
from flashcore import ops
step = sys.argv[1]
torch.manual_seed(0)
sets = [tuple(torch.randn(2, 8, 512, 64, device="cuda", dtype=torch.float16) for _ in range(3)) for _ in range(4)]
run = ops.prepare_forward(*sets[0], False, 0.125, "auto", False)
run(*sets[1]); torch.cuda.synchronize()


def graph(calls, side):
    if side:
        s = torch.cuda.Stream(); s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for i in range(2):
                run(*sets[i % 4])
        torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            run(*sets[i % 4])
    return g


try:
    if step == "plain":
        g = graph(200, False)
    elif step == "side":
        g = graph(200, True)
    elif step == "two":  # a short graph dropped, then a long one (trig.py's estimate, then its round)
        g0 = graph(8, False); g0.replay(); torch.cuda.synchronize(); del g0
        g = graph(200, False)
    elif step == "two_side":
        g0 = graph(8, True); g0.replay(); torch.cuda.synchronize(); del g0
        g = graph(200, True)
    elif step == "two_kept":
        g0 = graph(8, True); g0.replay(); torch.cuda.synchronize()
        g = graph(200, True)
    for _ in range(3):
        g.replay()
    torch.cuda.synchronize()
    print(step, "ok")
except Exception as e:
    print(step, "ERR", str(e).splitlines()[0])
