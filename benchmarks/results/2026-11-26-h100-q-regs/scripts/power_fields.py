"""Run 2's probe: nvidia-smi's power.draw against power.draw.instant while a kernel runs in
bursts of ~30 ms separated by ~30 ms idle. On Ampere and newer, power.draw is documented as
a one-second average; if so it cannot tell apart two providers timed in alternating 30-60 ms
windows, and the bench must sample power.draw.instant instead."""
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-25-h100-pingpong-fp16/scripts"))
from timing import graph, replay_us  # noqa: E402

import flashcore  # noqa: E402
from flashcore.bench import clocks  # noqa: E402

OUT = os.environ.get("OUT", ".")
q, k, v = (torch.randn(4, 16, 4096, 128, device="cuda", dtype=torch.bfloat16) for _ in range(3))
fn = lambda i: flashcore.attention(q, k, v, causal=True)  # noqa: E731
calls = max(4, int(30e3 / replay_us(graph(fn, 4), 4)))
g = graph(fn, calls)
samplers = {}
for field in ("power.draw", "power.draw.instant"):
    s = clocks.ClockSampler("0", command=["nvidia-smi", f"--query-gpu=timestamp,clocks.sm,{field}",
                                          "--format=csv,noheader,nounits", "--loop-ms=20", "-i", "0"])
    print(field, "started" if s.start() else "failed", flush=True)
    samplers[field] = s
time.sleep(0.5)
busy, idle = [], []
for _ in range(40):
    t0 = clocks.now()
    replay_us(g, calls)
    t1 = clocks.now()
    busy.append((t0, t1))
    time.sleep(0.03)
    idle.append((t1 + 0.005, clocks.now()))
with open(os.path.join(OUT, "power_fields.log"), "w") as log:
    for field, s in samplers.items():
        s.stop()
        inb = [x[2] for x in s.samples if any(a <= x[0] <= b for a, b in busy)]
        ini = [x[2] for x in s.samples if any(a <= x[0] <= b for a, b in idle)]
        line = (f"{field}: {len(s.samples)} samples; in bursts {len(inb)} median "
                f"{statistics.median(inb) if inb else None} W, between bursts {len(ini)} median "
                f"{statistics.median(ini) if ini else None} W")
        print(line, flush=True)
        log.write(line + "\n")
        for x in s.samples[:400]:
            log.write(f"  {x[0]:.3f} {x[1]:.0f} {x[2]:.1f}\n")
