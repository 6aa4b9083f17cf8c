"""Timing helpers shared by the A/B scripts here: CUDA graphs of back-to-back calls, replayed
and timed with CUDA events."""
import torch


def graph(fn, calls):
    """A CUDA graph of ``calls`` calls fn(0), fn(1), ... (after two warm-up calls on a side stream)."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        for i in range(2):
            fn(i)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        for i in range(calls):
            fn(i)
    return g


def replay_us(g, calls):
    """Microseconds per call of one replay of ``g``."""
    a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    a.record(); g.replay(); b.record(); b.synchronize()
    return a.elapsed_time(b) * 1e3 / calls


def ends(t):
    """The first and last (batch, head) slices: what the scripts judge against the reference."""
    return (t[:1, :1], t[-1:, -1:])


def paired_rounds(graphs, rounds):
    """Per graph, its microseconds per call in each of ``rounds`` rounds; every round replays
    all graphs ((graph, calls) pairs), in reverse order every other round."""
    times = [[] for _ in graphs]
    for r in range(rounds):
        for i in (range(len(graphs)) if r % 2 == 0 else reversed(range(len(graphs)))):
            times[i].append(replay_us(*graphs[i]))
    return times


def median(x):
    return sorted(x)[len(x) // 2]
