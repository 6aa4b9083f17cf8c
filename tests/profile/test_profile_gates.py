"""Gates: the TOML file, overrides, the shape regime, and evaluation."""

import pytest
import torch

from flashcore.bench.cases import Case
from flashcore.profile import gates

PASSING = {"tensor_pipe_pct": 70.0, "spill_bytes": 0, "bank_conflict_pct": 1.0, "dram_pct": 20.0,
           "registers": 246, "ctas_per_sm": 1}


def _status(results, name, provider="flashcore"):
    (r,) = [r for r in results if r.gate == name and r.provider == provider]
    return r.status


def test_packaged_defaults_match_the_issue():
    g = gates.load().by_name()
    assert (g["tensor_pipe"].bound, g["tensor_pipe"].value, g["tensor_pipe"].when) == ("min", 60.0, "compute_bound")
    assert (g["spills"].bound, g["spills"].value, g["spills"].enabled) == ("max", 0.0, True)
    assert (g["bank_conflicts"].bound, g["bank_conflicts"].value) == ("max", 5.0)
    # The origin's other limits are there but off until asked for.
    assert not g["dram"].enabled and not g["registers"].enabled and not g["ctas_per_sm"].enabled


def test_all_pass_at_a_compute_bound_shape():
    results = gates.evaluate(gates.load(), {"flashcore": PASSING}, "compute_bound")
    assert {r.gate: r.status for r in results} == {
        "tensor_pipe": "pass", "spills": "pass", "bank_conflicts": "pass",
        "dram": "skip", "registers": "skip", "ctas_per_sm": "skip",
    }


@pytest.mark.parametrize("metric,value,gate", [
    ("tensor_pipe_pct", 59.9, "tensor_pipe"),
    ("spill_bytes", 8, "spills"),
    ("bank_conflict_pct", 5.01, "bank_conflicts"),
])
def test_each_default_gate_can_fail(metric, value, gate):
    results = gates.evaluate(gates.load(), {"flashcore": {**PASSING, metric: value}}, "compute_bound")
    assert [f.gate for f in gates.failures(results)] == [gate]


def test_tensor_gate_skips_memory_bound_shapes():
    results = gates.evaluate(gates.load(), {"flashcore": {**PASSING, "tensor_pipe_pct": 3.0}}, "memory_bound")
    assert _status(results, "tensor_pipe") == "skip"


def test_unmeasured_metric_fails_rather_than_passes():
    metrics = {k: v for k, v in PASSING.items() if k != "bank_conflict_pct"}
    results = gates.evaluate(gates.load(), {"flashcore": metrics}, "compute_bound")
    (fail,) = gates.failures(results)
    assert fail.gate == "bank_conflicts" and "not measured" in fail.message


def test_peers_are_not_gated():
    results = gates.evaluate(gates.load(), {"sdpa-cudnn": {}, "flashcore-triton": PASSING}, "compute_bound")
    assert {r.provider for r in results} == {"flashcore-triton"}


def test_override_sets_threshold_and_enables():
    g = gates.override(gates.load(), {"tensor_pipe": 40.0, "registers": 255})
    results = gates.evaluate(g, {"flashcore": {**PASSING, "tensor_pipe_pct": 47.0}}, "compute_bound")
    assert _status(results, "tensor_pipe") == "pass"
    assert _status(results, "registers") == "pass"
    results = gates.evaluate(gates.override(g, {"registers": 64}), {"flashcore": PASSING}, "compute_bound")
    assert _status(results, "registers") == "fail"


def test_override_of_unknown_gate_names_the_known_ones():
    with pytest.raises(gates.GateConfigError, match="no gate named 'nope'.*tensor_pipe"):
        gates.override(gates.load(), {"nope": 1})


def test_gates_file_from_path(tmp_path):
    path = tmp_path / "g.toml"
    path.write_text('[classify]\ncompute_bound_flops_per_byte = 10.0\n'
                    '[gate.occ]\nmetric = "achieved_occupancy_pct"\nmin = 20\n')
    g = gates.load(path)
    assert g.compute_bound_flops_per_byte == 10.0
    results = gates.evaluate(g, {"flashcore": {"achieved_occupancy_pct": 12.4}}, "memory_bound")
    assert [r.status for r in results] == ["fail"]


@pytest.mark.parametrize("body,match", [
    ('[gate.a]\nmetric = "x"\n', "exactly one of `min` or `max`"),
    ('[gate.a]\nmetric = "x"\nmin = 1\nmax = 2\n', "exactly one of `min` or `max`"),
    ('[gate.a]\nmetric = "x"\nmin = "high"\n', "expected a number"),
    ('[gate.a]\nmetric = "x"\nmin = 1\nwhen = "sometimes"\n', "expected `when`"),
    ('[gate.a]\nmetrc = "x"\nmin = 1\n', "unknown keys"),
    ('[gate.a\n', "not valid TOML"),
])
def test_bad_gates_file_is_a_clear_error(tmp_path, body, match):
    path = tmp_path / "g.toml"
    path.write_text(body)
    with pytest.raises(gates.GateConfigError, match=match):
        gates.load(path)


def test_regime_prefill_is_compute_bound_and_decode_memory_bound():
    g = gates.load()
    assert gates.regime(Case(4, 16, 4096, 128, dtype=torch.bfloat16), g) == "compute_bound"
    assert gates.regime(Case(4, 16, 1, 128, seq_k=8192, dtype=torch.bfloat16), g) == "memory_bound"
    assert gates.intensity(Case(1, 1, 4096, 128, causal=True)) < gates.intensity(Case(1, 1, 4096, 128))
