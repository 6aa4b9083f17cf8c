"""The clock fields of bench records: nvidia-smi's loop output parsed, samples matched to the
windows a record was timed in, and the sampler wired through run_bench (on CPU, with a fake
nvidia-smi: a script that prints stamped lines)."""

import datetime
import sys
import textwrap
import time

import pytest

from flashcore.bench import cli, clocks
from flashcore.bench.report import clock_lines
from flashcore.bench.runner import Plan, run_bench

from bench_fakes import TINY, Clock, Costed, FixedTimer

CEILINGS = {"matmul_n": 256, "matmul_tflops": {"fp16": 1.0, "bf16": 1.0}, "copy_gbps": 1.0, "clock": "fake"}


def stamp(t: float) -> str:
    return datetime.datetime.fromtimestamp(t).strftime(clocks.STAMP_FORMAT)[:-3]  # nvidia-smi prints ms


def test_a_loop_line_parses_to_host_seconds_mhz_and_watts():
    t = 1_764_140_905.125
    when, mhz, watts = clocks.parse_line(f"{stamp(t)}, 1815, 671.30\n")
    assert when == pytest.approx(t, abs=1e-3) and mhz == 1815.0 and watts == 671.3


def test_the_sampler_asks_for_instantaneous_power():
    # power.draw is a one-second average on Ampere and newer: a cell's providers, timed in
    # turns of tens of milliseconds, would each read the others' power.
    query = next(arg for arg in clocks.ClockSampler("0").command if arg.startswith("--query-gpu="))
    assert query.split("=", 1)[1].split(",") == ["timestamp", "clocks.sm", "power.draw.instant"]


@pytest.mark.parametrize("line", ["", "timestamp, clocks.current.sm [MHz], power.draw.instant [W]",
                                  "2026/11/26 07:08:25.123, [N/A], 671.30", "2026/11/26 07:08:25.123, 1815"])
def test_anything_else_is_no_sample(line):
    assert clocks.parse_line(line) is None


def test_a_record_gets_the_medians_of_the_samples_inside_its_windows_only():
    samples = [(1.0, 1980, 150), (2.0, 1900, 600), (2.5, 1850, 650), (3.0, 1700, 690), (9.0, 1000, 100)]
    got = clocks.summarize(samples, [(1.5, 2.6), (2.9, 3.1)])
    assert got == {"sm_mhz": 1850, "power_w": 650}
    assert clocks.summarize(samples, [(4.0, 5.0)]) == {"sm_mhz": None, "power_w": None}


def test_a_sampler_whose_command_cannot_run_reports_it_and_keeps_no_samples():
    sampler = clocks.ClockSampler("0", command=["/nonexistent/nvidia-smi"])
    assert sampler.start() is False and sampler.samples == []
    sampler.stop()


FAKE_SMI = textwrap.dedent("""
    import datetime, sys, time
    mhz = 1980
    while True:
        now = datetime.datetime.now().strftime("%Y/%m/%d %H:%M:%S.%f")[:-3]
        print(f"{now}, {mhz}, {mhz / 3:.2f}")  # no flush: a pty makes stdout line-buffered
        mhz -= 1
        time.sleep(0.005)
""")


def fake_sampler(tmp_path):
    script = tmp_path / "fake_smi.py"
    script.write_text(FAKE_SMI)
    return clocks.ClockSampler("0", command=[sys.executable, str(script)])


def test_the_sampler_reads_lines_as_they_are_printed(tmp_path):
    sampler = fake_sampler(tmp_path)
    assert sampler.start()
    try:
        t0 = clocks.now()
        deadline = time.monotonic() + 10
        while len(sampler.samples) < 20 and time.monotonic() < deadline:
            time.sleep(0.01)
        # Lines arrive as printed, not in blocks when the child exits.
        assert len(sampler.samples) >= 20
        assert sampler.samples[-1][0] >= t0 - 0.5
    finally:
        sampler.stop()


def test_run_bench_gives_each_timed_record_the_clock_of_its_windows(register, tmp_path):
    register("flashcore", lambda: Costed("flashcore", Clock(), 0))
    plan = Plan(cases=[("tiny", TINY)], providers=["flashcore", "flashcore-reference"], device="cpu",
                warmup_ms=1.0, rep_ms=40.0, sets=2, rounds=2)
    sampler = fake_sampler(tmp_path)
    result = run_bench(plan, timer=FixedTimer(5.0), ceilings=CEILINGS, sampler=sampler)
    assert sampler._proc is None  # stopped by run_bench
    for r in result.records:
        assert r["status"] == "ok"
        # The fake's clock falls by 1 MHz per line and its power is a third of it: each record's
        # medians come from its own windows' lines.
        assert r["sm_mhz"] is not None and r["sm_mhz"] < 1980
        assert r["power_w"] == pytest.approx(r["sm_mhz"] / 3, abs=1.0)
    assert len(clock_lines(result.records)) == 2


class WindowCounter:
    """A sampler that reports, as the record's "clock", how many windows it was asked about
    and whether each is a real interval of this run."""

    def __init__(self):
        self.started = self.stopped = False
        self.begin = clocks.now()

    def start(self):
        self.started = True
        return True

    def stop(self):
        self.stopped = True

    def window(self, windows):
        end = clocks.now()
        ok = all(self.begin <= t0 <= t1 <= end for t0, t1 in windows)
        return {"sm_mhz": float(len(windows)), "power_w": 1.0 if ok else -1.0}


@pytest.mark.parametrize("rounds", [1, 3])
def test_each_record_is_summarised_over_one_window_per_timing_round(register, rounds):
    sampler = WindowCounter()
    plan = Plan(cases=[("tiny", TINY)], providers=["flashcore-reference", "sdpa-math"], device="cpu",
                warmup_ms=1.0, rep_ms=4.0, sets=2, rounds=rounds)
    result = run_bench(plan, timer=FixedTimer(5.0), ceilings=CEILINGS, sampler=sampler)
    assert sampler.started and sampler.stopped
    assert [(r["sm_mhz"], r["power_w"]) for r in result.records] == [(float(rounds), 1.0)] * 2


def test_without_a_sampler_on_cpu_the_clock_fields_stay_empty(register):
    result = run_bench(Plan(cases=[("tiny", TINY)], providers=["flashcore-reference"], device="cpu",
                            warmup_ms=1.0, rep_ms=2.0, sets=2), timer=FixedTimer(5.0), ceilings=CEILINGS)
    assert all(r["sm_mhz"] is None and r["power_w"] is None for r in result.records)
    assert clock_lines(result.records) == []


def test_no_clocks_turns_the_sampling_off_in_the_plan():
    def plan_of(*argv):
        return cli.make_plan(cli.build_parser().parse_args(["bench", "--shape", "1,1,16,16", *argv]))

    assert plan_of().clocks is True
    assert plan_of("--no-clocks").clocks is False
