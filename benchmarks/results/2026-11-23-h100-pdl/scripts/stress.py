"""H100: PDL stress of the stage-1 Gluon kernel (64x128, 2 stages) with the trigger after the KV loop
(late), in the prologue (early) or absent (none: implicit at exit). One variant per process: graphs of
CALLS back-to-back calls on 4 rotating input sets, replayed REPLAYS times, then the last output judged."""
import importlib, os, sys, time
import torch
sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from flashcore.bench.correctness import judge

var, b, s, d, causal = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), sys.argv[5] == "C"
m = importlib.import_module(f"gf_{var}")
cfg = m.Config(64, 128, 4, 2)
torch.manual_seed(0)
sets = [tuple(torch.randn(b, 8, s, d, device="cuda", dtype=torch.float16) for _ in range(3)) for _ in range(4)]
run = m.prepare(*sets[0], causal, d ** -0.5, cfg, False)
run(*sets[0]); torch.cuda.synchronize()
st = torch.cuda.Stream(); st.wait_stream(torch.cuda.current_stream())
with torch.cuda.stream(st):
    run(*sets[1])
torch.cuda.current_stream().wait_stream(st)
g = torch.cuda.CUDAGraph()
outs = []
with torch.cuda.graph(g):
    for i in range(int(os.environ.get("CALLS", "2000"))):
        o, _ = run(*sets[i % 4])
outs = o
t0 = time.time()
try:
    for r in range(int(os.environ.get("REPLAYS", "60"))):
        g.replay()
    torch.cuda.synchronize()
    ok = judge(outs[:1, :2], *(t[:1, :2] for t in sets[(int(os.environ.get("CALLS", "2000")) - 1) % 4]), causal=causal).ok
    print(f"{var:6s} B{b} S{s} D{d} {'C' if causal else 'F'}: ran, correct={ok}, {time.time() - t0:.1f}s", flush=True)
except Exception as e:
    print(f"{var:6s} B{b} S{s} D{d} {'C' if causal else 'F'}: ERROR {str(e).splitlines()[0]}", flush=True)
