"""The isolated evaluator: failures of every kind are results, and candidates share nothing.

These start real worker subprocesses (CPU; Triton's interpreter for the triton
family). The misbehaving candidates come from ``tune_fake_family``.
"""

import json
import os
import subprocess
import sys
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch

from flashcore.bench.cases import Case
from flashcore.kernels import triton_fwd
from flashcore.tune.search import Candidate
from flashcore.tune.worker import (WorkerClient, WorkerEvaluator, _Handler, binary_identity, check_binary,
                                   launched_kernels, spill_problem)

HERE = Path(__file__).parent
FAKE = "tune_fake_family"
CASE = Case(1, 2, 24, 16, causal=True, dtype=torch.float16)


@pytest.fixture(scope="module")
def client():
    path = os.pathsep.join(filter(None, [str(HERE), os.environ.get("PYTHONPATH")]))
    c = WorkerClient(env={"PYTHONPATH": path, "TRITON_INTERPRET": "1"})
    yield c
    c.close()


def evaluator(client, family=FAKE, case=CASE, timeout_s=30.0, arch=80, **kw):
    return WorkerEvaluator(client, family, [case], [1000.0], arch=arch, timeout_s=timeout_s,
                           gate={"sets": 3, "seed": 1}, timing={"warmup_ms": 1, "rep_ms": 5}, **kw)


def cand(behaviour="ok", block_m=32):
    return Candidate({"block_m": block_m, "num_warps": 1, "behaviour": behaviour}, 0, "random")


@pytest.mark.skipif(torch.cuda.is_available(), reason="CPU tier: asserts the interpreter + CPU-clock path; the GPU path ran for real in benchmarks/results/2026-11-22-h100-tune")
def test_a_good_candidate_is_timed_with_fitness_against_the_peer(client):
    r = evaluator(client)(cand())
    assert r.valid, r.reason
    case = r.info["cases"][0]
    assert r.median_us == pytest.approx(case["timing"]["median_us"])
    assert r.fitness == pytest.approx(1000.0 / r.median_us)
    assert case["timing"]["mode"] == "eager" and case["timing"]["clock"] == "cpu-perf-counter"
    assert set(case["seconds"]) == {"constraint", "compile", "correctness", "timing"}
    assert case["max_abs_err"] < 1e-2


@pytest.mark.parametrize("behaviour,stage,reason", [
    ("nan", "correctness", "NaN in output"),
    ("unwritten", "correctness", "NaN in output"),
])
def test_wrong_outputs_fail_the_gate(client, behaviour, stage, reason):
    client.ensure()  # the worker starts lazily: count restarts from a running one
    starts = client.starts
    r = evaluator(client)(cand(behaviour))
    assert not r.valid and r.stage == stage and reason in r.reason
    assert client.starts == starts and client.proc is not None  # no restart needed for a wrong answer


def test_constraint_hook_runs_in_the_worker_too(client):
    r = evaluator(client)(Candidate({"block_m": 64, "num_warps": 4, "behaviour": "ok"}, 0, "random"))
    assert not r.valid and r.stage == "constraint" and "fake register pressure" in r.reason


def test_a_fault_restarts_the_worker_with_a_fresh_cache_dir(client):
    client.ensure()
    before_dir, before_pid = client.cache_dir, client.info["pid"]
    r = evaluator(client)(cand("raise"))
    assert not r.valid and r.stage == "compile" and "illegal memory access" in r.reason
    assert client.proc is None and not Path(before_dir).exists()  # dropped; its cache deleted
    r = evaluator(client)(cand())
    assert r.valid
    assert client.info["pid"] != before_pid
    assert client.info["cache_dir"] == client.cache_dir != before_dir
    assert Path(client.cache_dir).is_dir()


def test_a_hang_times_out_and_the_search_goes_on(client):
    r = evaluator(client, timeout_s=3.0)(cand("hang"))
    assert not r.valid and r.stage == "timeout" and "within 3 s" in r.reason
    assert evaluator(client)(cand()).valid


def test_a_crash_is_a_result(client):
    r = evaluator(client)(cand("crash"))
    assert not r.valid and r.stage == "worker" and "exit code 17" in r.reason
    assert evaluator(client)(cand()).valid


def test_offline_compile_rejects_shared_memory_overflow(client):
    # 128x128 tiles, 4 stages, D=128 compile to 288 KB of shared memory on sm_90 (> 227 KB).
    case = Case(1, 1, 16, 128, dtype=torch.float16)
    big = Candidate({"block_m": 128, "block_n": 128, "num_warps": 8, "num_stages": 4}, 0, "random")
    r = evaluator(client, "flashcore.kernels.triton_fwd", case, arch=90, offline_arch=90)(big)
    assert not r.valid and r.stage == "compile"
    assert "shared 294912 B > 232448 B" in r.reason


# ----------------------------------------------------------------------------------
# Binary identity: what proves that no candidate ran another's kernel
# ----------------------------------------------------------------------------------
def test_distinct_configs_compile_to_distinct_binaries_that_match_them():
    # Real CompiledKernels, built by Triton for sm_90 with no GPU, in a process that
    # does not interpret (tune_binary_identity.py).
    configs = [triton_fwd.Config(64, 32, 4, 2), triton_fwd.Config(64, 32, 4, 3), triton_fwd.Config(32, 32, 4, 2)]
    args = [",".join(map(str, (c.block_m, c.block_n, c.num_warps, c.num_stages))) for c in configs]
    env = {**os.environ, "TRITON_INTERPRET": "0"}
    proc = subprocess.run([sys.executable, str(HERE / "tune_binary_identity.py"), *args],
                          capture_output=True, text=True, env=env, timeout=300)
    assert proc.returncode == 0, proc.stderr[-2000:]
    idents = json.loads(proc.stdout)
    assert len({i["hash"] for i in idents}) == len(configs)
    for config, ident in zip(configs, idents):
        assert check_binary(config.as_dict(), ident) is None
        assert ident["constexprs"]["BLOCK_M"] == config.block_m and ident["num_stages"] == config.num_stages
    # The origin's bug: every variant launched one binary. Each other config is caught.
    assert "num_stages=2, config wants 3" in check_binary(configs[1].as_dict(), idents[0])
    assert "block_m=64, config wants 32" in check_binary(configs[2].as_dict(), idents[0])


def test_check_binary_skips_what_a_binary_cannot_show():
    ident = {"hash": "ab" * 16, "num_warps": 4, "num_stages": 2, "constexprs": {"BLOCK_M": 64}}
    assert check_binary({"block_m": 64, "num_warps": 4, "split_kv": 2}, ident) is None
    assert "num_warps=4, config wants 8" in check_binary({"num_warps": 8}, ident)


def test_a_spilling_binary_is_rejected_before_it_can_become_a_tuned_entry():
    assert spill_problem(0) is None
    assert "ptxas reports 420 B of spill" in spill_problem(420)


def test_local_memory_without_spills_passes():
    # Real PTX for sm_90a through ptxas: a local array indexed at run time is a stack frame,
    # local memory that is not a spill.
    frame = """.version 8.0
.target sm_90a
.address_size 64
.visible .entry k(.param .u64 p, .param .u32 i)
{
    .local .align 4 .b8 buf[32];
    .reg .b32 r<4>;
    .reg .b64 rd<4>;
    ld.param.u64 rd1, [p];
    ld.param.u32 r1, [i];
    and.b32 r1, r1, 7;
    mov.u64 rd2, buf;
    mul.wide.u32 rd3, r1, 4;
    add.u64 rd2, rd2, rd3;
    st.local.u32 [rd2], r1;
    add.u32 r3, r1, 1;
    and.b32 r3, r3, 7;
    mov.u64 rd2, buf;
    mul.wide.u32 rd3, r3, 4;
    add.u64 rd2, rd2, rd3;
    ld.local.u32 r2, [rd2];
    cvta.to.global.u64 rd1, rd1;
    st.global.u32 [rd1], r2;
    ret;
}
"""
    kernel = SimpleNamespace(asm={"ptx": frame})
    ident = {"n_spills": 8}
    assert _Handler._spills(kernel, ident, 90) is None
    assert ident["spill_bytes"] == 0 and ident["stack_bytes"] >= 32
    assert _Handler._spills(kernel, {"n_spills": 0}, 90) is None  # no local memory: ptxas not even run


def test_an_offline_compile_that_spills_is_rejected():
    res = SimpleNamespace(error="", registers=168, spill_bytes=420, shared_bytes=1024, smem_limit=232448)
    family = SimpleNamespace(offline_fn=lambda config, case, arch: res)
    report = {"info": {}}
    reason = _Handler()._compile({"family": family, "case": None, "config": None,
                                  "msg": {"offline_arch": 90}}, report)
    assert reason == "offline sm_90: spills 420 B (profile --offline fails spilling configs)"
    assert report["info"]["offline"]["spill_bytes"] == 420


def test_one_binary_for_two_configs_is_flagged():
    handler = _Handler()
    assert handler.track_binary("h1", "block_m=64") is None
    assert handler.track_binary("h1", "block_m=64") is None  # the same config again: its own binary
    assert handler.track_binary("h2", "block_m=32") is None
    assert "already launched for config block_m=64" in handler.track_binary("h1", "block_m=32")


def test_launched_kernels_maps_each_launch_to_its_compiled_kernel():
    # Triton's own hook chain and LazyDict, with a stand-in JIT function and launch.
    import triton
    from triton.compiler.compiler import LazyDict

    class Kernel:
        def __init__(self, handle):
            self.function = handle

    mine, other = Kernel(101), Kernel(202)

    class Jit:
        device_caches = {0: ({"k1": mine, "k2": other}, {}, None, None, None)}

    def launch(handle):
        triton.knobs.runtime.launch_enter_hook(LazyDict({"name": "k", "function": handle, "stream": 0}))

    got = launched_kernels([Jit()], lambda: (launch(202), launch(999)))
    assert got == [other, None]  # 999: a binary outside the family's caches
    assert not triton.knobs.runtime.launch_enter_hook.calls  # the hook is removed again


def test_the_cuda_compile_check_accepts_its_own_binary_and_rejects_a_stranger():
    # _check_launch as the CUDA path calls it, on stand-ins shaped like CompiledKernel.
    from types import SimpleNamespace as NS

    def kernel(hash_, block_m, warps):
        src = NS(fn=NS(arg_names=["Q", "BLOCK_M"]), constants={(1,): block_m})
        md = NS(name="_attn_fwd_kernel", num_warps=warps, num_stages=2, num_ctas=1, shared=1024)
        return NS(hash=hash_, metadata=md, src=src, n_regs=128, n_spills=0)

    handler = _Handler()
    ctx = {"params": {"block_m": 64, "num_warps": 4, "num_stages": 2}}
    report = {"info": {}}
    assert handler._check_launch(ctx, report, [kernel("aa" * 8, 64, 4)]) is None
    assert report["info"]["binary"]["n_regs"] == 128
    assert "BLOCK_M" in report["info"]["binary"]["constexprs"]
    assert "block_m=32, config wants 64" in handler._check_launch(ctx, {"info": {}}, [kernel("bb" * 8, 32, 4)])
    # A parameter the binary cannot show (not a constexpr, not an option) that did not
    # reach the kernel: the same binary for a second config is caught by its hash.
    other = {"params": {"block_m": 64, "num_warps": 4, "num_stages": 2, "split_kv": 2}}
    assert "already launched for config block_m=64" in \
        handler._check_launch(other, {"info": {}}, [kernel("aa" * 8, 64, 4)])
    assert "outside the module's JIT caches" in handler._check_launch(ctx, {"info": {}}, [None])


def test_a_kernel_module_maps_its_config_to_what_the_binary_shows():
    from flashcore.kernels import gluon_fwd
    from flashcore.tune.space import load_family
    from flashcore.tune.worker import binary_params

    family = load_family("gluon")
    ws = gluon_fwd.Config(128, 128, 8, 3, True)
    # A warp-specialised Gluon binary: 12 warps over its partitions, STAGES as a constexpr,
    # and Triton's num_stages option left at its default.
    ident = {"hash": "abc", "num_warps": 12, "num_stages": 3, "constexprs": {"BLOCK_M": 128, "BLOCK_N": 128, "STAGES": 3}}
    assert check_binary(binary_params(family, ws, ws.as_dict()), ident) is None
    two = gluon_fwd.Config(128, 128, 8, 2, True)
    assert "stages=3, config wants 2" in check_binary(binary_params(family, two, two.as_dict()), ident)
    plain = gluon_fwd.Config(64, 128, 4, 2)
    ident = {"hash": "def", "num_warps": 4, "num_stages": 3, "constexprs": {"BLOCK_M": 64, "BLOCK_N": 128, "STAGES": 2}}
    assert check_binary(binary_params(family, plain, plain.as_dict()), ident) is None
    # Families without a mapping are checked on their own fields.
    assert binary_params(load_family("triton"), None, {"num_stages": 3}) == {"num_stages": 3}
