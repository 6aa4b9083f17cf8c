"""flashcore bench: argument errors and a full CPU run."""

import argparse
import json

import pytest
import torch
from rich.console import Console

from flashcore.bench import cli

from bench_fakes import Clock, Costed, FixedTimer, Raising

CEILINGS = {"matmul_n": 256, "matmul_tflops": {"fp16": 1.0, "bf16": 1.0}, "copy_gbps": 1.0, "clock": "fake"}


def parse(argv):
    return cli.build_parser().parse_args(["bench", *argv])


def error_of(argv, capsys):
    with pytest.raises(SystemExit) as exit_info:
        args = parse(argv)
        cli.make_plan(args)
    assert exit_info.value.code == 2
    return capsys.readouterr().err


@pytest.mark.parametrize("argv, expected", [
    (["--shape", "1,2,3"], "argument --shape: expects B,Hq,S,D[,Hkv[,Sk]] (4 to 6 integers), got '1,2,3'"),
    (["--shape", "1,6,8,16,4"], "argument --shape: '1,6,8,16,4': Hq (6) must be a multiple of Hkv (4)"),
    (["--providers", "sdpa,fa5"], "argument --providers: unknown provider(s) 'fa5'; expected a comma list of: flashcore"),
    (["--preset", "huge"], "argument --preset: invalid choice: 'huge'"),
    (["--sets", "0"], "argument --sets: expected a positive int, got '0'"),
    (["--rep-ms", "fast"], "argument --rep-ms: expected a positive float, got 'fast'"),
    (["--dtype", "fp8"], "argument --dtype: invalid choice: 'fp8'"),
    (["--mode", "turbo"], "argument --mode: invalid choice: 'turbo'"),
    (["--stall-limit", "0"], "argument --stall-limit: expected a positive float, got '0'"),
])
def test_bad_arguments(argv, expected, capsys):
    assert expected in error_of(argv, capsys)


def test_graph_mode_needs_a_gpu(monkeypatch, capsys):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    err = error_of(["--mode", "graph"], capsys)
    assert "argument --mode: 'graph' needs CUDA graphs" in err and "--mode eager" in err
    err = error_of(["--device", "cuda"], capsys)
    assert "argument --device: expected a CUDA GPU" in err


def test_defaults_without_a_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    settings = cli.resolve(parse([]))
    assert settings["device"] == "cpu" and settings["modes"] == ("eager",) and settings["presets"] == ["tiny"]
    assert settings["sets"] == 5 and settings["rounds"] == 1
    assert settings["stall_limit_s"] is None  # the interpreter may take minutes a step
    assert cli.make_plan(parse(["--stall-limit", "30"])).stall_limit_s == 30.0
    assert cli.resolve(parse(["--rounds", "2"]))["rounds"] == 2
    quick = cli.resolve(parse(["--quick"]))
    assert quick["sets"] == cli.QUICK["sets"] and quick["rep_ms"] == cli.QUICK["rep_ms"]
    assert cli.resolve(parse(["--shape", "1,2,8,16"]))["presets"] == []


def test_defaults_with_a_gpu(monkeypatch):
    monkeypatch.setattr(torch.cuda, "is_available", lambda: True)
    settings = cli.resolve(parse([]))
    assert settings["device"] == "cuda" and settings["modes"] == ("eager", "graph")
    assert settings["presets"] == ["seed", "standard"]
    assert settings["rounds"] == cli.GPU_ROUNDS and cli.GPU_ROUNDS % 2 == 0  # even: a linear drift cancels
    assert settings["stall_limit_s"] == cli.STALL_LIMIT_S


def test_register_adds_the_subcommand():
    parser = argparse.ArgumentParser(prog="flashcore")
    sub = parser.add_subparsers(dest="command")
    cli.register(sub)
    args = parser.parse_args(["bench", "--preset", "seed", "--preset", "gqa", "--providers", "flashcore,fa4"])
    assert args.preset == ["seed", "gqa"] and args.providers == ["flashcore", "fa4"] and args.func is cli.run_from_args


def run(argv, tmp_path, **kw):
    console = Console(record=True, width=200)
    args = parse([*argv, "--out", str(tmp_path), "--device", "cpu"])
    code = cli.run_from_args(args, timer=FixedTimer(30.0), ceilings=CEILINGS, console=console, **kw)
    return code, console.export_text()


def test_full_cpu_run_writes_everything(tmp_path):
    code, text = run(["--shape", "1,2,32,16", "--shape", "1,2,48,16,1,64", "--providers",
                      "flashcore-reference,sdpa-math,sdpa", "--quick"], tmp_path)
    assert code == 0
    assert "No CUDA device in use" in text and "custom · bf16 · eager" in text
    doc = json.loads((tmp_path / "bench.json").read_text())
    assert len(doc["records"]) == 4 * 3 and doc["settings"]["sets"] == 2 and doc["settings"]["rounds"] == 1
    assert (tmp_path / "bench.csv").exists() and (tmp_path / "tflops-custom-bf16-eager.png").exists()
    assert "wrote" in text and "bench.json" in text


def test_report_reprints_a_saved_run_and_writes_its_plots(tmp_path, register):
    register("flashcore", lambda: Costed("flashcore", Clock(), 1.0))  # the reference: no interpreter
    run(["--shape", "1,2,32,16", "--shape", "1,2,48,16", "--providers", "flashcore,sdpa-math", "--quick",
         "--no-plots"], tmp_path)
    saved = tmp_path / "bench.json"
    before = saved.read_text()
    console = Console(record=True, width=200)
    args = parse(["--report", str(saved), "--preset", "standard"])  # run options are ignored
    assert cli.run_from_args(args, console=console) == 0
    text = console.export_text()
    assert "custom · bf16 · eager" in text and "fast_p" in text
    assert "against the best peer" in text and "1.000×" in text and "of sdpa-math" in text
    assert "│ custom │" in text and "│ all " not in text  # one preset: no "all" row repeating it
    assert (tmp_path / "tflops-custom-bf16-eager.png").exists()  # beside the file without --out
    assert saved.read_text() == before  # nothing re-run, nothing rewritten


@pytest.mark.parametrize("content, expected", [
    (None, "argument --report: expected a bench.json written by flashcore bench, could not read"),
    ("{not json", "argument --report: expected a bench.json written by flashcore bench, could not read"),
    ('{"schema": "other/2", "records": []}', "expected a bench.json of schema 'flashcore.bench/1' with records, "
                                               "got schema 'other/2'"),
    ("[1, 2]", "got schema 'list'"),
])
def test_report_of_a_file_that_is_not_a_bench_json(content, expected, tmp_path, capsys):
    path = tmp_path / "bench.json"
    if content is not None:
        path.write_text(content)
    with pytest.raises(SystemExit) as exit_info:
        cli.run_from_args(parse(["--report", str(path)]), console=Console(record=True))
    assert exit_info.value.code == 2
    err = capsys.readouterr().err
    assert expected in err and str(path) in err


def test_ctrl_c_writes_partial_results(tmp_path, register):
    register("stop", lambda: Raising("stop", KeyboardInterrupt()))
    code, text = run(["--shape", "1,2,32,16", "--providers", "flashcore-reference,stop", "--no-plots"], tmp_path)
    assert code == 130 and "stopped early: interrupted" in text
    doc = json.loads((tmp_path / "bench.json").read_text())
    assert doc["stopped"].startswith("interrupted") and doc["records"] == []  # the one case did not finish
    assert not list(tmp_path.glob("*.png"))


def test_top_level_cli_dispatches_bench(tmp_path, monkeypatch):
    pytest.importorskip("flashcore.tune.cli")
    pytest.importorskip("flashcore.profile.cli")
    from flashcore import cli as top

    args = top.build_parser().parse_args(["bench", "--shape", "1,1,16,16", "--providers", "flashcore-reference"])
    assert args.func is cli.run_from_args


def test_default_command_on_cpu_is_quick_and_real(tmp_path, monkeypatch):
    # No fakes: the real CPU timer, measured ceilings, the tiny preset, every provider.
    monkeypatch.setattr(torch.cuda, "is_available", lambda: False)
    monkeypatch.chdir(tmp_path)
    assert cli.main(["--quick"]) == 0
    doc = json.loads((tmp_path / "bench-out" / "bench.json").read_text())
    assert doc["timer"] == "cpu-perf-counter" and doc["warning"].startswith("CPU timings")
    # Quick means the quick budget, not a wall-clock bound (a loaded CI host ran it in 44 s).
    assert doc["settings"]["presets"] == ["tiny"]
    assert {k: doc["settings"][k] for k in cli.QUICK} == cli.QUICK
    ok = {r["provider"] for r in doc["records"] if r["status"] == "ok"}
    assert {"flashcore", "flashcore-reference", "sdpa-math"} <= ok
    assert all(r["status"] != "error" for r in doc["records"]), [r["error"] for r in doc["records"]]
