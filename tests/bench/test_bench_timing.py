import time

import pytest
import torch

from flashcore.bench import timing
from flashcore.bench.timing import measure, percentile, rotation_sets

from bench_fakes import Clock, ClockTimer, FixedTimer

FAST = {"warmup_ms": 1.0, "rep_ms": 2.0, "device": "cpu"}


def test_fixed_timer_gives_its_cost():
    t = measure(lambda i: None, mode="eager", timer=FixedTimer(40.0), **FAST)
    assert t.median_us == t.p10_us == t.p90_us == 40.0
    assert t.reps >= timing.MIN_REPS_CPU and t.clock == "fake-fixed" and t.mode == "eager"


def test_percentiles_over_varying_samples():
    clock = Clock()
    costs = iter(range(1, 10_000))

    def fn(i):
        clock.now += next(costs) % 10 + 1  # cycles 2..10, 1

    t = measure(fn, mode="eager", timer=ClockTimer(clock), warmup_ms=0.001, rep_ms=100.0, device="cpu")
    assert 1 <= t.p10_us < t.median_us < t.p90_us <= 10
    assert t.reps >= 10


def test_percentile_interpolates():
    assert percentile([1.0, 2.0, 3.0, 4.0, 5.0], 50) == 3.0
    assert percentile([0.0, 10.0], 10) == pytest.approx(1.0)
    assert percentile([7.0], 90) == 7.0


def test_first_call_is_untimed_warm_up():
    calls = []
    timer = FixedTimer(10.0)
    measure(lambda i: calls.append(i), mode="eager", timer=timer, **FAST)
    assert len(calls) == timer.sampled_calls + 1


def test_rotation_cycles_through_every_set():
    seen = []
    measure(lambda i: seen.append(i), mode="eager", rotate=["a", "b", "c"], timer=FixedTimer(10.0), **FAST)
    assert set(seen) == {0, 1, 2}
    # Consecutive calls move to the next set, also across samples.
    assert all(b == (a + 1) % 3 for a, b in zip(seen, seen[1:]))


def test_without_rotation_always_set_zero():
    seen = set()
    measure(lambda i: seen.add(i), mode="eager", timer=FixedTimer(10.0), **FAST)
    assert seen == {0}


def test_graph_mode_needs_cuda():
    with pytest.raises(ValueError, match="graph.*needs a CUDA device.*eager"):
        measure(lambda i: None, mode="graph", device="cpu")


def test_bad_mode():
    with pytest.raises(ValueError, match="mode must be 'eager' or 'graph', got 'fast'"):
        measure(lambda i: None, mode="fast", device="cpu")


def test_cpu_timer_measures_real_time():
    t = measure(lambda i: time.sleep(0.002), mode="eager", warmup_ms=1.0, rep_ms=10.0, device="cpu")
    assert t.clock == "cpu-perf-counter"
    assert 1900 <= t.median_us < 50_000


@pytest.mark.parametrize("bytes_per_set, l2, expected", [
    (1 << 30, 50 << 20, 1),  # far bigger than L2
    (100 << 20, 50 << 20, 1),  # exactly 2x L2
    (10 << 20, 50 << 20, 10),  # 10 sets of 10 MB cover 2x 50 MB
    (1000, 50 << 20, timing.MAX_ROTATION_SETS),  # capped
    (1000, 0, 1),  # CPU: no rotation
])
def test_rotation_sets(bytes_per_set, l2, expected):
    assert rotation_sets(bytes_per_set, l2) == expected


def test_ceilings_on_cpu_with_a_fake_timer():
    c = timing.ceilings("cpu", (torch.bfloat16, torch.float16), timer=FixedTimer(1000.0), warmup_ms=1, rep_ms=2)
    n = timing.MATMUL_N_CPU
    assert c["matmul_n"] == n and set(c["matmul_tflops"]) == {"bf16", "fp16"}
    assert c["matmul_tflops"]["bf16"] == pytest.approx(2 * n**3 / 1e-3 / 1e12)
    assert c["copy_gbps"] == pytest.approx(2 * timing.COPY_BYTES_CPU / 1e-3 / 1e9)
    assert c["clock"] == "fake-fixed" and "fp32" in c["note"]


@pytest.mark.gpu
@pytest.mark.parametrize("mode", ["eager", "graph"])
def test_cuda_modes(mode):
    a = torch.randn(1024, 1024, device="cuda", dtype=torch.float16)
    t = measure(lambda i: a @ a, mode=mode, warmup_ms=5, rep_ms=20)
    assert t.clock == "cuda-events" and 0 < t.p10_us <= t.median_us <= t.p90_us
    if mode == "graph":
        assert t.calls_per_sample >= 1


class _LoggingTimer:
    """Records what the graph path asks of the timer, in order."""

    name = "fake-log"

    def __init__(self):
        self.log = []

    def sample(self, body, calls):
        for j in range(calls):
            body(j)
        self.log.append("sample")
        return 100.0 * calls

    def sync(self):
        pass

    def hold(self, us):
        self.log.append(("hold", us))


class _FakeGraph:
    def __init__(self, replays):
        self.replays = replays

    def replay(self):
        self.replays.append(1)


def test_every_timed_graph_sample_starts_behind_a_hold(monkeypatch):
    """Without a hold the start event fires on an idle GPU and the host's enqueue of the
    replay counts as kernel time (kernel log v30); the two set-up samples need none."""
    replays = []
    monkeypatch.setattr(timing, "_capture", lambda call, calls: _FakeGraph(replays))
    timer = _LoggingTimer()
    samples, calls = timing._graph(timer, lambda j: None, est_us=5.0, rep_ms=1.0, sets=3)
    timed = timer.log[2:]  # after the upload replay and the sizing sample
    assert timer.log[:2] == ["sample", "sample"]
    assert len(samples) == timing.MIN_REPS and len(timed) == 2 * len(samples)
    assert all(h[0] == "hold" and h[1] >= timing.HOLD_MIN_US for h in timed[0::2])
    assert timed[1::2] == ["sample"] * len(samples)
    assert calls == max(3, round(timing.GRAPH_REPLAY_US / 5.0))
