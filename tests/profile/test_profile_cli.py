"""``flashcore profile`` end to end on CPU, with a stand-in ncu that replays fixtures.

The stand-in is a real executable run through the real subprocess path: it reads
the command line our code builds, writes a fixture CSV where ``--log-file`` says,
and can act out ncu's failures.
"""

import json
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from flashcore import dispatch
from flashcore.profile import cli

FIXTURES = Path(__file__).parent / "fixtures"
SHAPE = ["--shape", "4,16,4096,128", "--dtype", "bf16", "--arch", "90"]

FAKE_NCU = """#!{python}
import json, os, shutil, sys
argv = sys.argv[1:]
if argv == ["--version"]:
    print("NVIDIA (R) Nsight Compute Command Line Profiler\\nVersion 2025.1.0.0 (stand-in)")
    sys.exit(0)
with open(os.environ["FAKE_NCU_ARGV"], "a") as f:
    f.write(json.dumps(argv) + "\\n")
mode = os.environ.get("FAKE_NCU_MODE", "ok")
provider = argv[argv.index("--provider") + 1]
log = argv[argv.index("--log-file") + 1]
report = argv[argv.index("--report") + 1]
if mode == "perm":
    print("==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters")
    sys.exit(1)
if mode == "none":
    print("==WARNING== No kernels were profiled.")
    sys.exit(0)
if mode == "run-target":  # run the target as ncu would, on the CPU
    import subprocess
    target = argv[argv.index("--log-file") + 2:]
    env = dict(os.environ, TRITON_INTERPRET="1")
    subprocess.run(target + ["--device", "cpu"], check=True, env=env)
if provider == "fa4":
    json.dump({{"status": "unsupported", "reason": "flash_attn.cute is not installed"}}, open(report, "w"))
    sys.exit(3)
fixture = {{"flashcore": "{raw}", "sdpa-cudnn": "{details}"}}[provider]
shutil.copy(fixture, log)
"""


@pytest.fixture
def fake_ncu(tmp_path, monkeypatch):
    path = tmp_path / "ncu"
    path.write_text(FAKE_NCU.format(
        python=sys.executable, raw=FIXTURES / "HANDWRITTEN_ncu_raw_flashcore_h100.csv",
        details=FIXTURES / "HANDWRITTEN_ncu_details_sdpa_cudnn_h100.csv"))
    path.chmod(0o755)
    argv_log = tmp_path / "argv.jsonl"
    monkeypatch.setenv("FAKE_NCU_ARGV", str(argv_log))
    monkeypatch.setenv("PATH", f"{tmp_path}:/usr/bin:/bin")
    return SimpleNamespace(path=path, calls=lambda: [json.loads(line) for line in argv_log.read_text().splitlines()])


def test_gate_fails_on_the_fixture_tensor_pipe_and_names_it(fake_ncu, tmp_path, capsys):
    out = tmp_path / "p.json"
    rc = cli.main([*SHAPE, "--provider", "flashcore,sdpa-cudnn", "--gate", "--out", str(out)])
    captured = capsys.readouterr()
    assert rc == 1
    assert "GATE FAILED: tensor_pipe (flashcore)" in captured.err
    report = json.loads(out.read_text())
    flash, cudnn = report["providers"]
    assert flash["status"] == cudnn["status"] == "ok"
    assert flash["metrics"]["tensor_pipe_pct"] == pytest.approx(47.32)
    assert cudnn["metrics"]["tensor_pipe_pct"] == pytest.approx(68.9)
    # flashcore's compile report: the config dispatch picks, recompiled offline (no GPU here).
    assert flash["compile"]["source"].startswith("offline")
    assert flash["compile"]["config"] == dispatch.triton_config(90, torch.bfloat16, 128, False, 4096, 4096, 64).as_dict()
    assert flash["metrics"]["spill_bytes"] == 0
    assert "compile" not in cudnn  # peers have no Triton compile report, and no gates
    assert {g["gate"]: g["status"] for g in report["gates"]}["tensor_pipe"] == "fail"
    assert report["regime"] == "compute_bound" and report["ncu"]["version"].endswith("(stand-in)")
    assert "sdpa-cudnn" in captured.out and "tensor pipe active" in captured.out


def test_lowered_threshold_passes_and_no_gate_flag_never_fails(fake_ncu):
    assert cli.main([*SHAPE, "--gate", "--min-tensor-pipe", "45"]) == 0
    assert cli.main([*SHAPE]) == 0  # without --gate a failing gate is reported, not fatal


def test_extra_metrics_are_requested_and_shown_as_rows(fake_ncu, capsys):
    cli.main([*SHAPE, "--extra-metrics", "launch__registers_per_thread, smsp__not_in_the_fixture.sum"])
    (argv,) = fake_ncu.calls()
    assert "smsp__not_in_the_fixture.sum" in argv[argv.index("--metrics") + 1]
    rows = {line.split("│")[1].strip(): line.split("│")[2].strip()
            for line in capsys.readouterr().out.splitlines() if line.count("│") >= 3}
    assert rows["launch__registers_per_thread"] == rows["registers / thread"] != "-"
    assert rows["smsp__not_in_the_fixture.sum"] == "-"  # asked for, not reported: shown as missing


def test_command_line_sent_to_ncu(fake_ncu):
    cli.main([*SHAPE, "--causal", "--warmup", "7"])
    (argv,) = fake_ncu.calls()
    joined = " ".join(argv)
    assert "--clock-control none" in joined
    assert "--kernel-name regex:_attn_fwd_kernel|_hopper_fwd_kernel|_gluon_fwd" in joined
    assert "--launch-skip 7 --launch-count 1" in joined
    assert "sm__inst_executed_pipe_tensor_op_gmma.sum" in joined  # --arch 90
    target = argv[argv.index(sys.executable):]
    assert target[:3] == [sys.executable, "-m", "flashcore.profile.target"]
    assert "--causal" in target and target[target.index("--shape") + 1] == "4,16,4096,128"


@pytest.mark.skipif(torch.cuda.is_available(), reason="CPU tier: runs the target under the interpreter, "
                    "which needs numpy<2.3 (the GPU image has 2.5)")
def test_target_runs_from_the_built_command_and_reports_the_dispatched_config(fake_ncu, monkeypatch, tmp_path):
    # The real target, launched from the command we build (on the CPU, interpreted).
    monkeypatch.setenv("FAKE_NCU_MODE", "run-target")
    out = tmp_path / "p.json"
    assert cli.main(["--shape", "1,2,32,16", "--arch", "90", "--warmup", "1", "--out", str(out)]) == 0
    flash = json.loads(out.read_text())["providers"][0]
    assert flash["status"] == "ok" and flash["compile"]["family"] == "triton"
    # The interpreter compiles nothing, so the report falls back to an offline compile.
    assert flash["compile"]["source"].startswith("offline") and flash["compile"]["registers"] > 0


def test_unsupported_provider_is_reported_and_others_still_run(fake_ncu, tmp_path):
    out = tmp_path / "p.json"
    assert cli.main([*SHAPE, "--provider", "flashcore,fa4", "--min-tensor-pipe", "1", "--gate",
                     "--out", str(out)]) == 0
    fa4 = json.loads(out.read_text())["providers"][1]
    assert fa4["status"] == "unsupported" and "not installed" in fa4["message"]


def test_unreadable_counters_exit_2_with_the_fix(fake_ncu, monkeypatch, capsys):
    monkeypatch.setenv("FAKE_NCU_MODE", "perm")
    assert cli.main(SHAPE) == 2
    assert "NVreg_RestrictProfilingToAdminUsers" in capsys.readouterr().err


def test_no_kernel_profiled_fails_the_gate_as_unmeasured(fake_ncu, monkeypatch, tmp_path):
    monkeypatch.setenv("FAKE_NCU_MODE", "none")
    out = tmp_path / "p.json"
    assert cli.main([*SHAPE, "--provider", "flashcore", "--gate", "--out", str(out)]) == 2  # every provider failed
    (flash,) = json.loads(out.read_text())["providers"]
    assert flash["status"] == "error" and "--kernel-regex" in flash["message"]


def test_missing_ncu_exits_2_with_a_clear_error(monkeypatch, tmp_path, capsys):
    monkeypatch.setenv("PATH", str(tmp_path))
    monkeypatch.setattr("flashcore.profile.ncu.NCU_SEARCH", (str(tmp_path / "none/*/ncu"),))
    assert cli.main(SHAPE) == 2
    err = capsys.readouterr().err
    assert "flashcore profile: error: Nsight Compute (ncu) not found" in err


@pytest.mark.parametrize("argv,match", [
    ([], "--shape: expected B,Hq,S,D"),
    ([*SHAPE, "--warmup", "0"], "--warmup: expected >= 1"),
    ([*SHAPE, "--provider", "flashcore", "--max-registers", "64", "--gates", "/no/such.toml"], "--gates: cannot read"),
    ([*SHAPE, "--provider", "flashcore,sdpa-flsh"], "(unknown: sdpa-flsh)"),
    ([*SHAPE, "--provider", "flashcore-gluon[block_m=64,bogus=1]"], "gluon Config has no field 'bogus'"),
])
def test_bad_options_exit_2(argv, match, capsys, fake_ncu):
    assert cli.main(argv) == 2
    assert match in capsys.readouterr().err


def test_shape_must_be_four_to_six_integers():
    with pytest.raises(SystemExit):
        cli.main(["--shape", "4,16,4096"])


def test_register_adds_profile_to_a_parent_parser():
    import argparse

    parser = argparse.ArgumentParser()
    cli.register(parser.add_subparsers(dest="command"))
    args = parser.parse_args(["profile", "--offline"])
    assert args.offline and args.func is cli.run


def test_a_fixed_config_provider_profiles_its_familys_kernels(tmp_path):
    spec = "flashcore-gluon[block_m=64,block_n=128,num_warps=4,num_stages=2]"
    args = cli.build_parser().parse_args(["profile", *SHAPE, "--provider", f"flashcore,{spec}"])
    assert cli._check_args(args) == ["flashcore", spec]
    cmd = cli.ncu_command(spec, args, "ncu", 90, {}, str(tmp_path))
    assert cmd[cmd.index("--kernel-name") + 1] == "regex:_gluon_fwd"
    assert cmd[cmd.index("--provider") + 1] == spec  # one argv entry: the target parses it whole
