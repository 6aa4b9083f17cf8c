"""The tuned table: write/read round trip, and dispatch reading it with fallbacks."""

import json
from pathlib import Path

import pytest
import torch

from flashcore import dispatch
from flashcore.kernels import triton_fwd
from flashcore.tune import table

KEY = dispatch.table_key(torch.bfloat16, 128, True, 8192, 8192)
TUNED = {"block_m": 64, "block_n": 128, "num_warps": 4, "num_stages": 2}
ENTRY = {"config": TUNED, "fitness": 1.07, "median_us": 812.4, "peer": "sdpa-cudnn", "peer_us": 869.3,
         "date": "2026-01-01T00:00:00+00:00", "device": "NVIDIA H100", "triton": "3.6.0"}


def test_key_format():
    assert KEY == "bf16/d128/causal/s8192"


def test_round_trip_and_merge(tmp_path):
    path = tmp_path / "sm90.json"
    table.apply(90, {KEY: ENTRY}, path)
    other = "fp16/d64/full/s512"
    table.apply(90, {other: {**ENTRY, "fitness": 0.9}}, path)
    loaded = table.load(path, 90)
    assert loaded["schema"] == table.SCHEMA and loaded["arch"] == 90
    assert loaded["entries"] == {KEY: ENTRY, other: {**ENTRY, "fitness": 0.9}}  # merged, not replaced
    table.apply(90, {KEY: {**ENTRY, "fitness": 1.2}}, path)
    assert table.load(path)["entries"][KEY]["fitness"] == 1.2


def test_load_rejects_foreign_files(tmp_path):
    bad = tmp_path / "x.json"
    bad.write_text(json.dumps({"schema": "other", "entries": {}}))
    with pytest.raises(table.TableError, match="schema 'other', expected 'flashcore.tuned/1'"):
        table.load(bad)
    bad.write_text(json.dumps({"schema": table.SCHEMA, "arch": 80, "entries": {}}))
    with pytest.raises(table.TableError, match="for arch 80, expected 90"):
        table.load(bad, 90)
    bad.write_text(json.dumps({"schema": table.SCHEMA, "arch": 90, "entries": {KEY: {"fitness": 1}}}))
    with pytest.raises(table.TableError, match="no 'config'"):
        table.load(bad)


@pytest.fixture
def package_tables(tmp_path, monkeypatch):
    """Point dispatch's loader at a temp directory; clear its caches before and after."""
    real = dispatch.resources.files

    def files(pkg):
        return tmp_path if pkg == "flashcore.tuned" else real(pkg)

    def clear():  # every cached lookup in dispatch (tuned_table, kernel_config, ...)
        for fn in vars(dispatch).values():
            if hasattr(fn, "cache_clear"):
                fn.cache_clear()

    clear()
    monkeypatch.setattr(dispatch.resources, "files", files)
    yield tmp_path
    clear()


def test_dispatch_reads_the_table_and_falls_back(package_tables):
    table.apply(90, {KEY: ENTRY}, package_tables / "sm90.json")
    tuned = dispatch.triton_config(90, torch.bfloat16, 128, True, 8192, 8192)
    assert tuned == triton_fwd.Config(**TUNED)
    # Same bucket (s8192 covers 4097..8192): same entry.
    assert dispatch.triton_config(90, torch.bfloat16, 128, True, 5000, 5000) == triton_fwd.Config(**TUNED)
    # A key the table lacks, and an arch with no table: the heuristic.
    assert dispatch.triton_config(90, torch.bfloat16, 128, False, 8192, 8192) == \
        triton_fwd.heuristic_config(90, 128, 2, False, 8192, 8192)
    assert dispatch.triton_config(80, torch.bfloat16, 128, True, 8192, 8192) == \
        triton_fwd.heuristic_config(80, 128, 2, True, 8192, 8192)


def test_package_path_is_where_dispatch_looks():
    path = table.package_path(90)
    assert path.name == "sm90.json" and Path(path).parent.name == "tuned"


def test_other_families_have_their_own_keys(package_tables):
    from flashcore.kernels import hopper_fwd
    from flashcore.tune.space import load_family

    case_key = "hopper:" + KEY
    hopper = {"block_m": 128, "block_n": 64, "num_warps": 8, "num_stages": 2, "warp_specialize": True}
    table.apply(90, {case_key: {**ENTRY, "config": hopper}}, package_tables / "sm90.json")
    got = dispatch.kernel_config("hopper", 90, torch.bfloat16, 128, True, 8192, 8192)
    assert got == hopper_fwd.Config(**hopper)
    # The triton family's key is absent: its heuristic.
    assert dispatch.triton_config(90, torch.bfloat16, 128, True, 8192, 8192) == \
        triton_fwd.heuristic_config(90, 128, 2, True, 8192, 8192)
    # The tuner writes the same key dispatch reads.
    from flashcore.bench.cases import Case

    assert load_family("hopper").table_key(Case(1, 16, 8192, 128, causal=True)) == case_key


def test_merging_a_fetched_proposal(tmp_path, capsys):
    proposal, into = tmp_path / "tuned-sm90.json", tmp_path / "pkg" / "sm90.json"
    table.write(proposal, table.merge(table.empty(90), {KEY: ENTRY}))
    table.apply(90, {"fp16/d64/full/s512": ENTRY}, into)
    assert table.main([str(proposal), "--into", str(into)]) == 0
    assert set(table.load(into, 90)["entries"]) == {KEY, "fp16/d64/full/s512"}
    assert table.main([str(tmp_path / "missing.json")]) == 2
    assert "no such file" in capsys.readouterr().err


def test_a_proposal_retires_keys_whose_heuristic_held(tmp_path, capsys):
    other = "fp16/d64/full/s512"
    assert table.merge({"entries": {KEY: ENTRY, other: ENTRY}}, {}, retired=[KEY])["entries"] == {other: ENTRY}
    proposal, into = tmp_path / "tuned-sm90.json", tmp_path / "sm90.json"
    table.apply(90, {KEY: ENTRY, other: ENTRY}, into)
    table.write(proposal, {**table.empty(90), "retired": [other]})
    assert table.main([str(proposal), "--into", str(into)]) == 0
    assert set(table.load(into, 90)["entries"]) == {KEY}
    assert "0 entries merged" in capsys.readouterr().out


def test_sub_wave_grids_have_their_own_bucket():
    # The seed shape (B*H = 8, S = 512) is one wave of 64-row tiles; B*H = 512 is not.
    assert dispatch.table_key(torch.float16, 64, False, 512, 512, batch_heads=8) == "fp16/d64/full/s512w1"
    assert dispatch.table_key(torch.float16, 64, False, 512, 512, batch_heads=512) == "fp16/d64/full/s512"
    assert dispatch.table_key(torch.float16, 64, False, 512, 512) == "fp16/d64/full/s512"


def test_heuristics_only_turns_the_table_off_for_a_block(package_tables):
    table.apply(90, {KEY: ENTRY}, package_tables / "sm90.json")
    facts = ("triton", 90, torch.bfloat16, 128, True, 8192, 8192)
    with dispatch.heuristics_only():
        assert dispatch.kernel_config(*facts) == triton_fwd.heuristic_config(90, 128, 2, True, 8192, 8192)
        assert dispatch.config_source(*facts) == "heuristic"
    assert dispatch.kernel_config(*facts) == triton_fwd.Config(**TUNED)
    assert dispatch.config_source(*facts) == "tuned"


def test_tuned_entries_are_fitted_to_short_queries(package_tables):
    # A decode-like call lands in the s8192 bucket; it must not run 128-row tiles.
    wide = {"block_m": 128, "block_n": 64, "num_warps": 8, "num_stages": 3}
    hopper = {**wide, "warp_specialize": True}
    table.apply(90, {KEY: {**ENTRY, "config": wide}, "hopper:" + KEY: {**ENTRY, "config": hopper}},
                package_tables / "sm90.json")
    got = dispatch.triton_config(90, torch.bfloat16, 128, True, 1, 8192)
    assert got == triton_fwd.Config(block_m=16, block_n=64, num_warps=4, num_stages=3)
    got = dispatch.kernel_config("hopper", 90, torch.bfloat16, 128, True, 40, 8192)
    assert (got.block_m, got.num_warps, got.warp_specialize) == (64, 4, False)
    assert dispatch.triton_config(90, torch.bfloat16, 128, True, 8192, 8192) == triton_fwd.Config(**wide)


@pytest.mark.parametrize("value, source", [("0", "heuristic"), ("1", "tuned")])
def test_environment_switch(value, source):
    import os
    import subprocess
    import sys

    key = next(k for k in dispatch.tuned_table(90) if k.startswith("hopper:bf16/d128/full/"))
    size = int(key.rsplit("/s", 1)[1])
    code = ("import torch; from flashcore import dispatch; "
            f"print(dispatch.config_source('hopper', 90, torch.bfloat16, 128, False, {size}, {size}))")
    env = {**os.environ, "FLASHCORE_TUNED": value}
    out = subprocess.run([sys.executable, "-c", code], env=env, capture_output=True, text=True, check=True)
    assert out.stdout.strip() == source
