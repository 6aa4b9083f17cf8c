"""GPU tier: the real thing on a small plan (events, CUDA graphs, L2 rotation, SDPA kernels).

Run with ``pytest -q tests/bench/test_bench_gpu.py`` on a CUDA machine; skipped elsewhere.
"""

import json

import pytest
import torch

from flashcore.bench import cli, timing
from flashcore.bench.cases import Case
from flashcore.bench.runner import Plan, run_bench

pytestmark = pytest.mark.gpu


def test_small_plan_in_both_modes():
    cases = [("seed", Case(1, 8, 512, 64, causal=c, dtype=torch.float16)) for c in (False, True)]
    providers = ["flashcore", "flashcore-triton", "sdpa", "sdpa-flash", "sdpa-efficient", "sdpa-math", "fa4"]
    plan = Plan(cases=cases, providers=providers, modes=("eager", "graph"), device="cuda",
                sets=2, warmup_ms=5, rep_ms=20)
    result = run_bench(plan)
    by = {(r["provider"], r["causal"], r["mode"]): r for r in result.records}
    for mode in ("eager", "graph"):
        for causal in (False, True):
            for name in ("flashcore", "flashcore-triton", "sdpa", "sdpa-flash", "sdpa-math"):
                r = by[(name, causal, mode)]
                assert r["status"] == "ok", (name, mode, r["error"])
                assert 0 < r["p10_us"] <= r["median_us"] <= r["p90_us"] and r["tflops"] > 0
                assert 0 < r["pct_of_ceiling"] < 120
    # graph replays strip host overhead: never slower than eager calls by much
    assert by[("flashcore", False, "graph")]["median_us"] <= 1.2 * by[("flashcore", False, "eager")]["median_us"]
    assert result.meta["device"]["capability"].startswith("sm_")
    assert result.meta["ceilings"]["matmul_tflops"]["fp16"] > 10


def test_rotation_covers_l2():
    case = Case(1, 8, 512, 64, dtype=torch.float16)
    from flashcore.bench.cases import io_bytes

    n = timing.rotation_sets(io_bytes(case), timing.l2_bytes("cuda"))
    assert n > 1 and n * io_bytes(case) >= min(2 * timing.l2_bytes("cuda"), timing.MAX_ROTATION_SETS * io_bytes(case))


def test_cli_seed_preset(tmp_path):
    code = cli.main(["--preset", "seed", "--providers", "flashcore,sdpa,sdpa-flash", "--quick", "--out", str(tmp_path)])
    assert code == 0
    doc = json.loads((tmp_path / "bench.json").read_text())
    assert doc["timer"] == "cuda-events" and doc["warning"] is None
    assert {r["mode"] for r in doc["records"]} == {"eager", "graph"}
    assert (tmp_path / "speedup-seed-fp16-eager.png").exists()
