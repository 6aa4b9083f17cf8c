"""Reports: JSON schema, CSV, plots, fast_p, the terminal table."""

import csv
import datetime
import json

import pytest
from rich.console import Console

from flashcore.bench import report
from flashcore.bench.runner import RECORD_FIELDS, BenchResult, Plan, base_record, run_bench, source_digest
from flashcore.bench.cases import Case

from bench_fakes import TINY, TINY_CAUSAL, Clock, ClockTimer, Costed, Raising

CEILINGS = {"matmul_n": 256, "matmul_tflops": {"fp16": 2.0}, "copy_gbps": 1.0, "clock": "fake"}


@pytest.fixture(scope="module")
def result():
    """A small real run: a fast "flashcore", slower SDPA default and fa2, a failing fa4."""
    from flashcore.bench import providers

    clock = Clock()
    saved = dict(providers.REGISTRY)
    providers.REGISTRY.update({
        "flashcore": lambda: Costed("flashcore", clock, 20.0),
        "sdpa": lambda: Costed("sdpa", clock, 50.0),
        "fa2": lambda: Costed("fa2", clock, 40.0),
        "fa4": lambda: Raising("fa4"),
    })
    try:
        cases = [("seed", TINY), ("seed", TINY_CAUSAL), ("tiny", Case(1, 2, 32, 16, causal=True, dtype=TINY.dtype)),
                 ("tiny", Case(1, 2, 64, 16, causal=True, dtype=TINY.dtype))]
        plan = Plan(cases=cases, providers=["flashcore", "sdpa", "fa2", "fa4"], device="cpu",
                    sets=1, warmup_ms=0.01, rep_ms=0.1)
        return run_bench(plan, timer=ClockTimer(clock), ceilings=CEILINGS)
    finally:
        providers.REGISTRY.clear()
        providers.REGISTRY.update(saved)


def test_json_schema(result, tmp_path):
    path = report.write_json(result, tmp_path / "bench.json")
    doc = json.loads(path.read_text())  # strict: no NaN/Infinity (allow_nan=False)
    assert doc["schema"] == "flashcore.bench/1"
    assert {"name", "capability", "driver", "sm_count", "clocks"} <= set(doc["device"])
    assert {"flashcore", "torch", "triton", "cuda", "fa4"} <= set(doc["versions"])
    assert "git_sha" in doc and doc["ceilings"] == CEILINGS
    assert doc["source_digest"] == source_digest()
    assert datetime.datetime.fromisoformat(doc["timestamp"]).tzinfo is not None
    assert len(doc["records"]) == 4 * 4
    for record in doc["records"]:
        assert list(record) == list(RECORD_FIELDS)
    assert doc["summary"]["fast_p"]["vs_sdpa"]["all"]["eager"]["p1"] == 1.0
    # fa2 (40 us) is the best peer of flashcore's 20 us on all four shapes; fa4 failed everywhere
    seed = doc["summary"]["standing_vs_best_peer"]["seed"]["eager"]
    assert seed["n"] == 2 and seed["ahead"] == 2 and seed["geomean"] == pytest.approx(2.0)
    assert seed["worst"][2] == "fa2"


def test_csv_has_the_same_records(result, tmp_path):
    path = report.write_csv(result.records, tmp_path / "bench.csv")
    rows = list(csv.DictReader(path.open()))
    assert list(rows[0]) == list(RECORD_FIELDS) and len(rows) == len(result.records)
    first = result.records[0]
    assert rows[0]["provider"] == first["provider"] and float(rows[0]["median_us"]) == pytest.approx(first["median_us"])


def test_plots_are_written(result, tmp_path):
    paths = report.write_plots(result, tmp_path)
    names = sorted(p.name for p in paths)
    assert names == ["speedup-seed-fp16-eager.png", "tflops-tiny-fp16-eager.png"]
    for p in paths:
        assert p.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and p.stat().st_size > 5000


def _rec(provider, sq, us, status="ok", preset="p", mode="eager"):
    r = base_record(preset, Case(1, 1, sq, 16), provider, mode)
    r.update(status=status, median_us=us, correct=status == "ok")
    return r


def test_fast_p_by_hand():
    records = [
        # shape 1: flashcore 2.5x faster than sdpa, fa4 faster still
        _rec("flashcore", 1, 10.0), _rec("sdpa", 1, 25.0), _rec("fa4", 1, 8.0),
        # shape 2: 1.2x faster than sdpa and than the best peer
        _rec("flashcore", 2, 10.0), _rec("sdpa", 2, 12.0), _rec("fa4", 2, 13.0, status="incorrect"),
        # shape 3: flashcore incorrect: never counts as fast
        _rec("flashcore", 3, 1.0, status="incorrect"), _rec("sdpa", 3, 12.0),
        # shape 4: no correct baseline at all: left out of n
        _rec("flashcore", 4, 1.0), _rec("sdpa", 4, None, status="error"),
        # shape 5: exactly 1.5x: "faster than 1.5x" is strict
        _rec("flashcore", 5, 10.0), _rec("sdpa", 5, 15.0),
    ]
    vs_sdpa = report.fast_p(records, "sdpa")["eager"]
    assert vs_sdpa == {"n": 4, "p0": 3 / 4, "p1": 3 / 4, "p1.5": 1 / 4, "p2": 1 / 4}
    vs_best = report.fast_p(records, "best")["eager"]
    # best peer: shape 1 fa4 (8 us: 0.8x), shape 2 sdpa (fa4 incorrect: 1.2x), shape 3 and 5 sdpa.
    assert vs_best == {"n": 4, "p0": 3 / 4, "p1": 2 / 4, "p1.5": 0.0, "p2": 0.0}


def test_standing_against_the_best_peer_by_hand():
    records = [
        # 1: fa4 the best peer, flashcore 0.8x of it (the worst shape)
        _rec("flashcore", 1, 10.0), _rec("sdpa", 1, 25.0), _rec("fa4", 1, 8.0),
        # 2: fa4 incorrect, so sdpa is the best peer: 1.2x
        _rec("flashcore", 2, 10.0), _rec("sdpa", 2, 12.0), _rec("fa4", 2, 5.0, status="incorrect"),
        # 3: flashcore incorrect: counted, failed, outside the mean
        _rec("flashcore", 3, 1.0, status="incorrect"), _rec("sdpa", 3, 12.0),
        # 4: no correct peer: not a shape of the standing
        _rec("flashcore", 4, 1.0), _rec("sdpa", 4, None, status="error"),
        # 5: exactly level: at most the best peer's time is ahead
        _rec("flashcore", 5, 10.0), _rec("sdpa", 5, 10.0),
    ]
    row = report.standing(records)["eager"]
    assert {k: row[k] for k in ("n", "ahead", "failed")} == {"n": 4, "ahead": 2, "failed": 1}
    assert row["geomean"] == pytest.approx((0.8 * 1.2 * 1.0) ** (1 / 3))
    assert row["worst"][0] == "B1 H1 S1 D16" and row["worst"][1:] == [pytest.approx(0.8), "fa4"]
    only_failed = report.standing([_rec("flashcore", 3, 1.0, status="incorrect"), _rec("sdpa", 3, 12.0)])
    assert only_failed["eager"] == {"n": 1, "ahead": 0, "failed": 1, "geomean": None, "worst": None}


def test_speedup_per_shape():
    cells = {"flashcore": _rec("flashcore", 1, 10.0), "sdpa": _rec("sdpa", 1, 30.0), "fa2": _rec("fa2", 1, 20.0)}
    assert report.speedup(cells, "sdpa") == pytest.approx(3.0)
    assert report.speedup(cells, "best") == pytest.approx(2.0)
    assert report.baseline_us(cells, "best") == (20.0, "fa2")


def test_terminal_report(result):
    console = Console(record=True, width=220)
    report.print_report(result, console)
    text = console.export_text()
    assert "CPU timings" in text and "seed · fp16 · eager" in text and "tiny · fp16 · eager" in text
    assert "✓ 20.0 µs" in text and "2.50×" in text  # flashcore vs sdpa
    assert "fa4 (x4): RuntimeError: boom: kernel exploded" in text
    assert "fast_p" in text and "SDPA default" in text and "best peer" in text
    assert "flashcore against the best peer" in text and "2.000×" in text and "of fa2" in text
    assert "│ all " in text and "│ seed " in text and "│ tiny " in text
    # a provider that never ran is a footnote, not a column
    header = next(line for line in text.splitlines() if "shape" in line)
    assert "fa4" not in header and "fa2" in header


def test_clock_title_keeps_its_brackets(result):
    records = [dict(r, sm_mhz=1980.0, power_w=300.0) for r in result.records]
    console = Console(record=True, width=220)
    report.print_report(BenchResult(meta=result.meta, records=records), console)
    assert "clocks while timed (median [range] over cells):" in console.export_text()  # not read as markup


def test_stopped_run_says_so():
    console = Console(record=True, width=200)
    res = BenchResult(meta={"settings": {"providers": []}, "device": {"name": "x"}, "ceilings": {}},
                      stopped="interrupted (Ctrl-C): results so far")
    report.print_report(res, console)
    assert "stopped early: interrupted" in console.export_text()


def test_notes_are_counted_once_per_shape():
    records = [_rec("flashcore", s, 1.0, mode=m) for s in (1, 2) for m in ("eager", "graph")]
    for r in records:
        r["note"] = "auto -> hopper"
    assert report.notes(records) == ["flashcore (x2): auto -> hopper"]


def test_config_provider_column_keeps_its_brackets(result):
    """A config provider's name holds [...], which rich would read as markup and drop."""
    spec = "flashcore-triton[block_m=16,block_n=16,num_warps=4,num_stages=1]"
    records = [dict(r, provider=spec if r["provider"] == "fa2" else r["provider"]) for r in result.records]
    console = Console(record=True, width=400)
    console.print(report.case_table(records, "seed", "eager", ["flashcore", "sdpa", spec]))
    assert spec in console.export_text()
