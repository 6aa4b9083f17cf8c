"""The bench loop end to end on CPU, with the reference provider and fake timers."""

import os

import pytest
import torch

from flashcore.bench.cases import Case, flops
from flashcore.bench.runner import RECORD_FIELDS, Plan, plan_cases, run_bench, source_digest

from bench_fakes import TINY, TINY_CAUSAL, Clock, ClockTimer, Constant, Costed, FixedTimer, Raising

CEILINGS = {"matmul_n": 256, "matmul_tflops": {"fp16": 1.0, "bf16": 1.0}, "copy_gbps": 1.0, "clock": "fake"}
FAST = {"warmup_ms": 1.0, "rep_ms": 2.0, "sets": 2}


def plan(providers, cases=(TINY, TINY_CAUSAL), **kw):
    return Plan(cases=[("tiny", c) for c in cases], providers=providers, device="cpu", **{**FAST, **kw})


def cells(result):
    return {(r["provider"], r["Sq"], r["causal"], r["mode"]): r for r in result.records}


def test_end_to_end_with_the_reference_and_a_fake_timer(register):
    register("flashcore", lambda: Costed("flashcore", Clock(), 0))
    result = run_bench(plan(["flashcore", "flashcore-reference", "sdpa-math"]), timer=FixedTimer(50.0),
                       ceilings=CEILINGS)
    assert not result.stopped and len(result.records) == 2 * 3
    for r in result.records:
        assert set(r) == set(RECORD_FIELDS)
        assert r["status"] == "ok" and r["correct"] is True and r["error"] == ""
        assert r["median_us"] == r["p10_us"] == r["p90_us"] == 50.0 and r["mode"] == "eager"
        case = TINY_CAUSAL if r["causal"] else TINY
        assert r["tflops"] == pytest.approx(flops(case) / 50e-6 / 1e12)
        assert r["pct_of_ceiling"] == pytest.approx(100 * r["tflops"] / 1.0)
        assert 0 <= r["max_abs_err"] < 1e-2 and 0 <= r["rel_err"] < 1e-2
    assert result.meta["schema"] == "flashcore.bench/1" and result.meta["timer"] == "fake-fixed"
    assert result.meta["warning"].startswith("CPU timings")


def test_a_failing_provider_is_marked_and_the_run_goes_on(register):
    register("boom", lambda: Raising("boom"))
    register("oom", lambda: Raising("oom", torch.OutOfMemoryError("CUDA out of memory. Tried 2 GiB")))
    register("zeros", lambda: Constant("zeros"))
    register("absent", lambda: type("Absent", (Constant,), {"supports": lambda s, c: "missing: absent not importable"})("absent"))
    names = ["boom", "oom", "absent", "zeros", "flashcore-reference"]
    result = run_bench(plan(names), timer=FixedTimer(10.0), ceilings=CEILINGS)
    got = cells(result)
    assert len(result.records) == 2 * len(names)
    boom = got[("boom", 16, False, "eager")]
    assert boom["status"] == "error" and boom["error"] == "RuntimeError: boom: kernel exploded"
    assert boom["median_us"] is None and boom["correct"] is None
    assert got[("oom", 16, True, "eager")]["status"] == "oom"
    assert got[("absent", 16, False, "eager")]["status"] == "missing"
    zeros = got[("zeros", 16, False, "eager")]
    # Incorrect outputs are still timed, and marked.
    assert zeros["status"] == "incorrect" and zeros["correct"] is False and zeros["median_us"] == 10.0
    assert zeros["error"].startswith("incorrect: set 0: error over budget")
    assert got[("flashcore-reference", 16, True, "eager")]["status"] == "ok"


def test_unsupported_cells_are_marked():
    case = Case(1, 2, 9, 16, seq_k=20, causal=True, dtype=torch.float16)
    result = run_bench(plan(["sdpa", "sdpa-math"], cases=[case]), timer=FixedTimer(), ceilings=CEILINGS)
    sdpa, math = result.records
    assert sdpa["status"] == "unsupported" and "top-left aligned" in sdpa["error"]
    assert math["status"] == "ok" and (math["Sq"], math["Sk"]) == (9, 20)


def test_a_timing_failure_keeps_the_correctness_result(register, monkeypatch):
    from flashcore.bench import timing

    def broken(*a, **k):
        raise RuntimeError("graph capture failed")

    monkeypatch.setattr(timing, "measure_samples", broken)
    result = run_bench(plan(["flashcore-reference"], cases=[TINY]), timer=FixedTimer(), ceilings=CEILINGS)
    (r,) = result.records
    assert r["status"] == "error" and r["correct"] is True and "eager: RuntimeError: graph capture" in r["error"]


def test_speeds_come_from_the_timer(register):
    clock = Clock()
    register("flashcore", lambda: Costed("flashcore", clock, 20.0))
    register("sdpa", lambda: Costed("sdpa", clock, 60.0))
    result = run_bench(plan(["flashcore", "sdpa"], cases=[TINY]), timer=ClockTimer(clock), ceilings=CEILINGS)
    got = {r["provider"]: r["median_us"] for r in result.records}
    assert got == {"flashcore": pytest.approx(20.0), "sdpa": pytest.approx(60.0)}


def test_ctrl_c_keeps_what_was_measured(register):
    class InterruptSecondCase(Constant):
        def run(self):
            if self.case.causal:
                raise KeyboardInterrupt
            return super().run()

    register("stopper", lambda: InterruptSecondCase("stopper"))
    seen = []
    result = run_bench(plan(["flashcore-reference", "stopper"]), timer=FixedTimer(), ceilings=CEILINGS,
                       on_case=lambda res: seen.append(len(res.records)))
    assert result.stopped.startswith("interrupted")
    # The causal case was checked in part when the stop came: only the finished case stays.
    assert [r["causal"] for r in result.records] == [False, False]
    assert seen == [2]


def test_time_limit_stops_the_run():
    result = run_bench(plan(["flashcore-reference"], time_limit_s=1e-9), timer=FixedTimer(), ceilings=CEILINGS)
    assert result.stopped.startswith("time limit") and result.records == []


def test_progress_reports_every_cell():
    events = []
    run_bench(plan(["flashcore-reference", "sdpa-math"]), timer=FixedTimer(), ceilings=CEILINGS,
              progress=lambda done, total, what: events.append((done, total, what)))
    assert [e[0] for e in events] == [0, 1, 2, 3, 4] and all(e[1] == 4 for e in events)
    assert "flashcore-reference" in events[0][2] and events[-1][2] == "done"


def test_cpu_run_uses_one_thread_and_restores(register):
    before = torch.get_num_threads()
    seen = []

    class Probe(Constant):
        def run(self):
            seen.append(torch.get_num_threads())
            return super().run()

    register("probe", lambda: Probe("probe"))
    run_bench(plan(["probe"], cases=[TINY]), timer=FixedTimer(), ceilings=CEILINGS)
    assert set(seen) == {1} and torch.get_num_threads() == before


def test_measured_ceilings_when_none_given():
    result = run_bench(plan(["flashcore-reference"], cases=[TINY]), timer=FixedTimer(100.0))
    c = result.meta["ceilings"]
    assert c["matmul_n"] == 256 and set(c["matmul_tflops"]) == {"fp16"}


def test_plan_cases():
    cases = plan_cases(["seed"], ["1,4,32,16,2"], causal="both")
    assert [p for p, _ in cases] == ["seed"] * 4 + ["custom"] * 2
    custom = [c for p, c in cases if p == "custom"]
    assert [c.causal for c in custom] == [False, True] and custom[0].hkv == 2
    assert custom[0].dtype == torch.bfloat16
    assert all(c.causal for _, c in plan_cases(["seed"], causal="on"))
    assert {c.dtype for _, c in plan_cases(["seed", "tiny"], dtype=torch.bfloat16)} == {torch.bfloat16}


class Heating(Costed):
    """Each call costs a little more than the one before, whoever makes it: a GPU that heats
    and slows down during a case."""

    def run(self):
        self.clock.calls = getattr(self.clock, "calls", 0) + 1
        self.clock.now += self.cost_us * (1 + self.clock.calls / 1000)
        return super(Costed, self).run()


def _heated_ratio(register, rounds):
    clock = Clock()
    register("first", lambda: Heating("first", clock, 50.0))
    register("second", lambda: Heating("second", clock, 50.0))
    result = run_bench(plan(["first", "second"], cases=[TINY], rounds=rounds), timer=ClockTimer(clock),
                       ceilings=CEILINGS)
    got = {r["provider"]: r for r in result.records}
    assert all(r["status"] == "ok" for r in got.values())
    return got["second"]["median_us"] / got["first"]["median_us"], got


def test_rounds_spread_drift_over_the_providers_of_a_case(register):
    # Timed one after the other, the provider that runs second reads slower on the same work;
    # in rounds of alternating order (ABBA...) both see the same heat on average.
    sequential, _ = _heated_ratio(register, 1)
    alternating, got = _heated_ratio(register, 4)
    assert sequential > 1.03
    assert abs(alternating - 1) < (sequential - 1) / 3
    # Each round adds its samples: four rounds of rep_ms / 4 pool about as many as one.
    assert got["first"]["reps"] >= 4 * 3


def test_rounds_alternate_the_order_of_providers(register, monkeypatch):
    from flashcore.bench import runner

    order = []
    real = runner.CaseRunner.time_round

    def spy(self, provider, *a, **k):
        order.append(provider.name)
        return real(self, provider, *a, **k)

    monkeypatch.setattr(runner.CaseRunner, "time_round", spy)
    clock = Clock()
    register("a", lambda: Costed("a", clock, 10.0))
    register("b", lambda: Costed("b", clock, 20.0))
    result = run_bench(plan(["a", "b"], cases=[TINY], rounds=3), timer=ClockTimer(clock), ceilings=CEILINGS)
    assert order == ["a", "b", "b", "a", "a", "b"]
    got = {r["provider"]: r["median_us"] for r in result.records}
    assert got == {"a": pytest.approx(10.0), "b": pytest.approx(20.0)}


_STALLING_RUN = """
import sys, time
sys.path.insert(0, sys.argv[1])
from bench_fakes import TINY, FixedTimer, Raising
from flashcore.bench import providers
from flashcore.bench.runner import run_bench
from test_bench_runner import CEILINGS, plan

class Hangs(Raising):
    def run(self):
        time.sleep(3600)  # a kernel that never finishes

providers.REGISTRY["hangs"] = lambda: Hangs("hangs")
stalling = plan(["flashcore-reference", "hangs"], cases=[TINY], stall_limit_s=1.0)
run_bench(stalling, timer=FixedTimer(), ceilings=CEILINGS)
print("finished")
"""


def test_a_stalled_step_ends_the_process_and_names_the_step():
    import subprocess
    import sys

    from flashcore.bench.runner import STALL_EXIT

    here = os.path.dirname(os.path.abspath(__file__))
    proc = subprocess.run([sys.executable, "-c", _STALLING_RUN, here], capture_output=True, text=True, timeout=120)
    assert proc.returncode == STALL_EXIT, proc.stderr[-2000:]
    assert "finished" not in proc.stdout
    assert "no progress" in proc.stderr and "the check of tiny" in proc.stderr and "hangs" in proc.stderr


def test_steps_within_the_stall_limit_run_to_the_end():
    result = run_bench(plan(["flashcore-reference"], stall_limit_s=30.0), timer=FixedTimer(), ceilings=CEILINGS)
    assert not result.stopped and {r["status"] for r in result.records} == {"ok"}


def test_source_digest_follows_the_sources_bytes_only(tmp_path):
    (tmp_path / "kernels").mkdir()
    (tmp_path / "kernels" / "fwd.py").write_text("BLOCK = 64\n")
    (tmp_path / "tuned.json").write_text("{}")
    first = source_digest(tmp_path)
    os.utime(tmp_path / "tuned.json", (0, 0))  # times, caches and other files do not count
    (tmp_path / "kernels" / "__pycache__").mkdir()
    (tmp_path / "kernels" / "__pycache__" / "fwd.py").write_text("stale")
    (tmp_path / "notes.txt").write_text("not a source")
    assert source_digest(tmp_path) == first and len(first) == 16
    (tmp_path / "kernels" / "fwd.py").write_text("BLOCK = 128\n")
    assert source_digest(tmp_path) != first
    (tmp_path / "kernels" / "fwd.py").write_text("BLOCK = 64\n")
    (tmp_path / "kernels" / "fwd.py").rename(tmp_path / "kernels" / "bwd.py")  # the path counts too
    assert source_digest(tmp_path) != first
