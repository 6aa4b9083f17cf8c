"""Timing shared by bench, tune and profile: one function, :func:`measure`, and the
in-run hardware ceilings, :func:`ceilings`.

``measure(fn, *, mode, rotate=None, warmup_ms, rep_ms, timer=None, device=None)``:

- ``fn(i)`` runs the computation once on rotation set ``i``: ``0 <= i < len(rotate)``,
  or always ``i = 0`` when ``rotate`` is None. ``rotate`` is the list of prepared
  input sets (only its length is used): successive calls cycle through it, so that
  inputs smaller than the L2 cache are not timed hot (see :func:`rotation_sets`).
- ``mode="eager"``: one Python call per iteration, host overhead included. A sample
  is ``b`` back-to-back calls between two CUDA events, divided by ``b``; ``b`` is
  chosen so that a sample spans ~100 us (1 on CPU). This is the per-call cost of a
  loop of eager calls: max(host overhead, kernel time), roughly.
- ``mode="graph"``: ``k`` calls are captured in one CUDA graph (after warm-up on a
  side stream, as PyTorch recommends); a sample is one replay between two events,
  divided by ``k``: kernel time without host overhead. ``k`` is chosen so a replay
  spans >= ~100-200 us, and is at least the number of rotation sets. CUDA only.
  Before each sample the timer holds the stream busy (:meth:`CudaEventTimer.hold`) for
  longer than the host takes to enqueue the replay. Otherwise the start event fires on an
  idle GPU and the launch gap counts as kernel time: 0.05-0.35 us per call at the seed's
  24-48 calls per replay, for every provider (kernel log v30).
- Warm-up: one untimed call (compilation, autotuning, lazy init), then calls for
  ``warmup_ms``; their mean is the estimate that sizes samples and the number of
  repetitions: as many as fit in ``rep_ms``, at least ``MIN_REPS`` (GPU) or
  ``MIN_REPS_CPU``. The result is the median with p10/p90 over the samples.
- ``timer``: what reads the clock. :class:`CudaEventTimer` on CUDA,
  :class:`CpuTimer` (``time.perf_counter``) on CPU. CPU results are labelled
  ``clock="cpu-perf-counter"`` and are not performance claims. Tests pass a fake.
"""

from __future__ import annotations

import itertools
import math
import time
from dataclasses import asdict, dataclass
from typing import Callable, Protocol

import torch

from .cases import DTYPE_NAMES

EAGER_SAMPLE_US = 100.0  # target span of one eager sample on the GPU
GRAPH_REPLAY_US = 200.0  # target span of one graph replay (estimated from eager calls)
MAX_CALLS_PER_SAMPLE = 256
MAX_GRAPH_CALLS = 256
MIN_REPS, MIN_REPS_CPU, MAX_REPS = 10, 3, 2000
MAX_WARMUP_CALLS = 10_000
MAX_ROTATION_SETS = 64
HOLD_MIN_US = 50.0  # the shortest hold before a graph sample; 4x the host's enqueue time if longer


@dataclass(frozen=True)
class Timing:
    median_us: float
    p10_us: float
    p90_us: float
    reps: int  # samples behind the percentiles
    calls_per_sample: int  # eager: calls per sample; graph: calls captured in the graph
    clock: str  # "cuda-events", "cpu-perf-counter", or a test timer's name
    mode: str

    def as_dict(self) -> dict:
        return asdict(self)


class Timer(Protocol):
    name: str

    def sample(self, body: Callable[[int], object], calls: int) -> float:
        """Run ``body(j)`` for ``j`` in ``range(calls)`` back to back; elapsed microseconds."""

    def sync(self) -> None:
        """Wait for outstanding work."""

    def hold(self, us: float) -> None:
        """Keep the device busy for at least ``us`` before the next sample starts."""


class CudaEventTimer:
    name = "cuda-events"

    def __init__(self, device=None):
        self.device = torch.device(device or "cuda")
        self.start = torch.cuda.Event(enable_timing=True)
        self.end = torch.cuda.Event(enable_timing=True)

    def sample(self, body, calls: int) -> float:
        self.start.record()
        for j in range(calls):
            body(j)
        self.end.record()
        self.end.synchronize()
        return self.start.elapsed_time(self.end) * 1000.0

    def sync(self) -> None:
        torch.cuda.synchronize(self.device)

    CYCLES_PER_US = 2000  # above any SM clock in MHz, so a hold lasts at least its span

    def hold(self, us: float) -> None:
        torch.cuda._sleep(int(us * self.CYCLES_PER_US))


class CpuTimer:
    name = "cpu-perf-counter"

    def sample(self, body, calls: int) -> float:
        t0 = time.perf_counter()
        for j in range(calls):
            body(j)
        return (time.perf_counter() - t0) * 1e6

    def sync(self) -> None:
        pass

    def hold(self, us: float) -> None:
        pass


def default_timer(device) -> Timer:
    device = torch.device(device)
    return CudaEventTimer(device) if device.type == "cuda" else CpuTimer()


def _resolve_device(device) -> torch.device:
    if device is None:
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    return torch.device(device)


def percentile(sorted_values: list[float], q: float) -> float:
    """Linear-interpolated percentile (q in [0, 100]) of an already sorted list."""
    pos = (len(sorted_values) - 1) * q / 100.0
    lo, hi = math.floor(pos), math.ceil(pos)
    return sorted_values[lo] + (sorted_values[hi] - sorted_values[lo]) * (pos - lo)


def round_order(items: list, r: int) -> list:
    """The order of round ``r`` when several things are timed in alternating rounds: as given,
    reversed every other round (ABBA), so that a drift over time lands on all of them alike."""
    return items if r % 2 == 0 else items[::-1]


def summarize(samples: list[float], calls: int, clock: str, mode: str) -> Timing:
    s = sorted(samples)
    return Timing(percentile(s, 50), percentile(s, 10), percentile(s, 90), len(s), calls, clock, mode)


def rotation_sets(bytes_per_set: int, l2_bytes: int) -> int:
    """How many input sets to cycle through so their footprint is >= 2x the L2 cache."""
    if l2_bytes <= 0 or bytes_per_set >= 2 * l2_bytes:
        return 1
    return min(MAX_ROTATION_SETS, math.ceil(2 * l2_bytes / max(1, bytes_per_set)))


def l2_bytes(device) -> int:
    device = torch.device(device)
    if device.type != "cuda":
        return 0
    return int(getattr(torch.cuda.get_device_properties(device), "L2_cache_size", 50 * 2**20))


def _cycler(fn: Callable[[int], object], sets: int) -> Callable[[int], object]:
    # A running counter, not the batch index, so that every sample continues the cycle.
    counter = itertools.count()
    return lambda _j: fn(next(counter) % sets)


def _reps(budget_us: float, sample_us: float, min_reps: int) -> int:
    return int(min(MAX_REPS, max(min_reps, budget_us / max(sample_us, 1e-3))))


def _warm_up(timer: Timer, call, warmup_ms: float) -> float:
    """Untimed first call, then calls for ``warmup_ms``; returns the mean us per call."""
    call(0)
    timer.sync()
    total, calls, batch = 0.0, 0, 1
    while calls == 0 or (total < warmup_ms * 1000.0 and calls < MAX_WARMUP_CALLS):
        total += timer.sample(call, batch)
        calls += batch
        batch = min(batch * 2, MAX_CALLS_PER_SAMPLE)
    return max(total / calls, 1e-3)


def _eager(timer, call, est_us, rep_ms, on_gpu) -> tuple[list[float], int]:
    calls = min(MAX_CALLS_PER_SAMPLE, math.ceil(EAGER_SAMPLE_US / est_us)) if on_gpu else 1
    reps = _reps(rep_ms * 1000.0, calls * est_us, MIN_REPS if on_gpu else MIN_REPS_CPU)
    return [timer.sample(call, calls) / calls for _ in range(reps)], calls


def _capture(call, calls: int) -> torch.cuda.CUDAGraph:
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):  # lazy init (workspaces, handles) off the capture
        for j in range(2):
            call(j)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        for j in range(calls):
            call(j)
    return graph


def _graph(timer, call, est_us, rep_ms, sets) -> tuple[list[float], int]:
    calls = min(MAX_GRAPH_CALLS, max(sets, math.ceil(GRAPH_REPLAY_US / est_us)))
    graph = _capture(call, calls)
    replay = lambda _j: graph.replay()  # noqa: E731
    timer.sample(replay, 1)  # first replay uploads the graph
    replay_us = max(timer.sample(replay, 2) / 2, 1e-3)
    reps = _reps(rep_ms * 1000.0, replay_us, MIN_REPS)
    hold_us = max(HOLD_MIN_US, 4.0 * _enqueue_us(graph, timer))
    samples = []
    for _ in range(reps):
        timer.hold(hold_us)
        samples.append(timer.sample(replay, 1) / calls)
    del graph
    return samples, calls


def _enqueue_us(graph, timer) -> float:
    """Host microseconds to enqueue one replay (the call returns before the GPU runs it)."""
    t0 = time.perf_counter()
    graph.replay()
    elapsed = (time.perf_counter() - t0) * 1e6
    timer.sync()
    return elapsed


def measure(fn: Callable[[int], object], *, mode: str, **options) -> Timing:
    """Time ``fn``; see the module docstring (``options``: those of :func:`measure_samples`).
    Raises ValueError for a bad mode."""
    samples, calls, clock = measure_samples(fn, mode=mode, **options)
    return summarize(samples, calls, clock, mode)


def measure_samples(
    fn: Callable[[int], object],
    *,
    mode: str,
    rotate: list | None = None,
    warmup_ms: float = 50.0,
    rep_ms: float = 250.0,
    timer: Timer | None = None,
    device=None,
) -> tuple[list[float], int, str]:
    """:func:`measure`'s samples (us per call), calls per sample and clock name, unsummarised:
    the bench times a case's providers in alternating rounds and pools each one's samples."""
    if mode not in ("eager", "graph"):
        raise ValueError(f"measure: mode must be 'eager' or 'graph', got {mode!r}")
    device = _resolve_device(device)
    on_gpu = device.type == "cuda"
    if mode == "graph" and not on_gpu:
        raise ValueError("measure: mode='graph' needs a CUDA device (CUDA graphs); use mode='eager' on CPU")
    timer = timer or default_timer(device)
    sets = len(rotate) if rotate else 1
    call = _cycler(fn, sets)
    est_us = _warm_up(timer, call, warmup_ms)
    if mode == "eager":
        samples, calls = _eager(timer, call, est_us, rep_ms, on_gpu)
    else:
        samples, calls = _graph(timer, call, est_us, rep_ms, sets)
    return samples, calls, timer.name


# ----------------------------------------------------------------------------------
# Ceilings: what this device reaches on the simplest kernels, measured in this run.
# ----------------------------------------------------------------------------------
MATMUL_N_GPU, MATMUL_N_CPU = 8192, 256
COPY_BYTES_GPU, COPY_BYTES_CPU = 2**30, 2**24


def matmul_tflops(dtype: torch.dtype, n: int, device, **kw) -> float:
    gen = torch.Generator(device=device).manual_seed(0)
    a = torch.randn(n, n, generator=gen, device=device).to(dtype)
    b = torch.randn(n, n, generator=gen, device=device).to(dtype)
    t = measure(lambda _i: torch.mm(a, b), mode="eager", device=device, **kw)
    return 2 * n**3 / (t.median_us * 1e-6) / 1e12


def copy_gbps(nbytes: int, device, **kw) -> float:
    src = torch.ones(nbytes, dtype=torch.uint8, device=device)
    dst = torch.empty_like(src)
    t = measure(lambda _i: dst.copy_(src), mode="eager", device=device, **kw)
    return 2 * nbytes / (t.median_us * 1e-6) / 1e9  # read + write


def ceilings(device, dtypes=(torch.bfloat16, torch.float16), *, warmup_ms=50.0, rep_ms=200.0, timer=None) -> dict:
    """Dense matmul TFLOP/s (n^3, n=8192 on GPU, 256 on CPU) per dtype and copy GB/s.

    Inputs are random normal (zeros would draw less power and clock higher).
    """
    device = _resolve_device(device)
    on_gpu = device.type == "cuda"
    n = MATMUL_N_GPU if on_gpu else MATMUL_N_CPU
    nbytes = COPY_BYTES_GPU if on_gpu else COPY_BYTES_CPU
    kw = {"warmup_ms": warmup_ms, "rep_ms": rep_ms, "timer": timer}
    # Half-precision matmuls on CPU are emulated and slower than attention itself:
    # there the ceiling is the fp32 matmul, for every dtype key.
    as_dtype = (lambda dt: dt) if on_gpu else (lambda dt: torch.float32)
    result = {
        "matmul_n": n,
        "matmul_tflops": {DTYPE_NAMES.get(dt, str(dt)): matmul_tflops(as_dtype(dt), n, device, **kw)
                          for dt in dtypes},
        "copy_bytes": nbytes,
        "copy_gbps": copy_gbps(nbytes, device, **kw),
        "clock": (timer.name if timer else default_timer(device).name),
    }
    if not on_gpu:
        result["note"] = "CPU: fp32 matmul for every dtype (half matmuls are emulated on CPU)"
    if on_gpu:
        torch.cuda.empty_cache()
    return result
