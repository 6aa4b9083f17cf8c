"""``flashcore profile --offline``: the plan (dedup, tuned tables), and a few real compiles."""

import json

import pytest

from flashcore import dispatch
from flashcore.kernels.triton_fwd import Config
from flashcore.profile import cli, offline, tables


@pytest.fixture
def tuned(monkeypatch):
    """Install a fake tuned table for sm_90 (the shipped ones may not exist yet)."""
    tables = {}

    def fake(arch):
        return tables.get(arch, {})

    monkeypatch.setattr(dispatch, "tuned_table", fake)
    return tables


def test_plan_deduplicates_head_dims_that_compile_alike(tuned):
    tasks = [t for t in offline.plan(archs=(90,), head_dims=(72, 80, 96, 128), seq_q=(4096,))
             if t.family == "triton"]
    # 72/80/96 pad to BLOCK_D 128 and share compiles; 128 is unpadded. Per class:
    # 2 causal values x 3 configs (small grids get 64-row tiles, split across two CTAs at
    # B*Hq = 1; a large grid 128-row tiles).
    assert len(tasks) == 12
    padded = [t for t in tasks if t.head_dim != 128]
    assert len(padded) == 6 and all(t.head_dims == {72, 80, 96} for t in padded)


def test_plan_covers_every_supported_head_dim_by_default(tuned):
    assert offline.HEAD_DIMS[0] == 16 and offline.HEAD_DIMS[-1] == 256 and 72 in offline.HEAD_DIMS
    tasks = offline.plan(archs=(80, 89, 90), seq_q=(1, 16, 64, 4096))
    assert {t.arch for t in tasks} == {80, 89, 90}
    covered = set().union(*(t.head_dims for t in tasks if t.arch == 89))
    assert covered == set(offline.HEAD_DIMS)
    # Sq=1 and Sq=16 both get a 16-row block; one-CTA grids (B*Hq=1) also split the keys
    # 16 ways (16-row blocks keep 4 KV tiles a split), and Sq=4096 at B*Hq=1 (64 CTAs of 64
    # rows) 2 ways: the split kernels compile too, and GQA's packed blocks (group 4) as well.
    configs = {t.config for t in tasks if t.arch == 90 and t.head_dim == 128 and not t.causal and t.family == "triton"}
    assert {(c.block_m, c.split_kv, c.pack_gqa) for c in configs} == {
        (16, 1, False), (16, 16, False), (16, 1, True), (16, 16, True), (64, 1, False), (64, 2, False), (64, 8, False),
        (128, 1, False)}


def test_plan_includes_tuned_entries_with_their_own_dtype(tuned):
    tuned[90] = {"fp16/d64/causal/s4096": {"config": {"block_m": 64, "block_n": 64, "num_warps": 4,
                                                       "num_stages": 2}, "ms": 0.1}}
    tasks = offline.plan(archs=(90,), head_dims=(), seq_q=())
    (task,) = tasks
    assert (task.dtype, task.head_dim, task.causal, task.config) == ("fp16", 64, True, Config(64, 64, 4, 2))
    assert task.sources == {"tuned"}


def test_gluon_tuned_entries_and_heuristic_are_compiled_for_sm90_only(tuned):
    tuned[90] = {"gluon:bf16/d128/causal/s1024": {"config": {"block_m": 128, "block_n": 64, "num_warps": 8,
                                                              "num_stages": 2, "warp_specialize": True}}}
    tasks = offline.plan(archs=(89, 90), head_dims=(64, 128), seq_q=(1024, 8192))
    gluon = [t for t in tasks if t.family == "gluon"]
    assert gluon and all(t.arch == 90 for t in gluon)
    assert any(t.sources == {"tuned"} and t.causal and t.head_dim == 128 for t in gluon)
    assert any(t.config.block_m == 192 and t.config.pingpong for t in gluon)  # D=64's long branch
    # D=128 full rows under 2k keys: two warpgroups taking turns, without stream-K.
    assert any(t.head_dim == 128 and not t.causal and t.config.block_m == 128 and t.config.pingpong
               and not t.config.stream_k for t in gluon)
    # The stream-K builds the heuristic ships are in the gate, and its table says which they are:
    # full rows at D=64 and 128, and the causal plans of the D=128 build (gluon_fwd.causal_plan_pays).
    cut = [t for t in gluon if t.config.stream_k]
    assert {t.head_dim for t in cut if not t.causal} == {64, 128}
    assert {t.head_dim for t in cut if t.causal} == {128}
    assert "persistent stream-k" in tables._config_text(cut[0].config.as_dict())
    # So are the causal builds whose masked tiles go max-free (gluon_fwd.masked_free_pays).
    free = [t for t in gluon if t.config.masked_free]
    assert free and all(t.causal for t in free) and {t.config.block_n for t in free} <= {32, 64}
    assert tables._config_text(free[0].config.as_dict()).endswith(" masked-free")


def test_default_sweep_compiles_the_pairs_plan_of_the_192_row_builds(tuned):
    """One pair of causal items a CTA (``three_warpgroup_pairs_pay``) takes no cell of SEQ_Q x
    BATCH_HEADS; GLUON_CELLS puts it in the default sweep, and a narrowed one leaves it out."""
    def pairs(tasks):
        return {t.head_dim for t in tasks if t.family == "gluon" and t.causal and t.config.block_m == 192
                and t.config.stream_k}

    assert pairs(offline.plan(archs=(90,), head_dims=(32, 64), tuned=False)) == {32, 64}
    assert pairs(offline.plan(archs=(90,), head_dims=(32, 64), seq_q=(4096,), tuned=False)) == set()


def test_tuned_entries_of_other_kernel_families_are_listed_as_skipped(tuned):
    tuned[90] = {"hopper:bf16/d128/full/s8192": {"config": {"block_m": 128, "block_n": 128, "num_warps": 8,
                                                             "num_stages": 2, "warp_specialize": True}}}
    skipped = []
    assert offline.plan(archs=(90,), head_dims=(), seq_q=(), skipped=skipped) == []
    assert skipped == ["sm90:hopper:bf16/d128/full/s8192"]


@pytest.mark.parametrize("entry,match", [
    ({"bf16/d64/s4096": {"config": {}}}, "is not \\[family:\\]dtype/d<D>/<causal|full>/s<N>"),
    ({"bf16/d64/full/s4096": {"config": {"block_m": 64}}}, "expected a triton config"),
    ({"gluon:bf16/d64/full/s4096": {"config": {"block_m": 64}}}, "expected a gluon config"),
])
def test_malformed_tuned_table_is_a_clear_error(tuned, entry, match):
    tuned[90] = entry
    with pytest.raises(offline.OfflineError, match=match):
        offline.plan(archs=(90,))


def test_small_sweep_compiles_and_reports(tuned):
    result = offline.sweep(archs=(90,), head_dims=(64,), seq_q=(4096,), jobs=1)
    # Portable: causal or not, x small grids (64-row tiles; keys split across two CTAs at one
    # head) or a large one. Gluon: stage 1 (four heads full, and causal at 4k), its keys split
    # across four CTAs (one head, causal or not), keys split between two warpgroups (four
    # heads causal) and the 192-row three-warpgroup tile (full at 4k).
    assert len(result.rows) == 12
    assert sorted(r["family"] for r in result.rows) == ["gluon"] * 6 + ["triton"] * 6
    gluon = [r["config"] for r in result.rows if r["family"] == "gluon"]
    assert sum(c["split_kv"] == 2 for c in gluon) == 1 and sum(c["kv_ctas"] == 4 for c in gluon) == 2
    for row in result.rows:
        assert row["ok"], row["problems"]
        assert 0 < row["registers"] <= 255 and row["shared_bytes"] > 0
        assert row["head_dims"] == [64] and row["sources"] == ["heuristic"]


def test_spill_or_shared_overflow_fails_the_cli(tuned, tmp_path, capsys):
    # 128x128 tiles, D=64, 4 stages: K and V alone need 128 KB, over sm_89's 99 KB per block.
    tuned[89] = {"bf16/d64/full/s4096": {"config": {"block_m": 128, "block_n": 128, "num_warps": 8,
                                                     "num_stages": 4}}}
    out = tmp_path / "off.json"
    rc = cli.main(["--offline", "--archs", "89", "--head-dims", "16", "--seq-q", "4096", "--jobs", "1",
                   "--out", str(out)])
    assert rc == 1
    assert "FAIL sm_89" in capsys.readouterr().err
    report = json.loads(out.read_text())
    assert report["failed"] >= 1
    bad = [r for r in report["reports"] if not r["ok"]]
    assert bad[0]["sources"] == ["tuned"] and any("shared" in p or "spilled" in p for p in bad[0]["problems"])


def test_offline_rejects_unknown_dtype(capsys):
    assert cli.main(["--offline", "--dtypes", "fp8"]) == 2
    assert "--dtypes: expected" in capsys.readouterr().err


_SPY = """
import json, triton
from flashcore.kernels.triton_fwd import Config
from flashcore.profile.resources import STANDARD_LAUNCH, compile_triton_fwd
sources, real = [], triton.compile
triton.compile = lambda src, *a, **k: (sources.append(src), real(src, *a, **k))[1]
reports = [compile_triton_fwd(80, 64, "bf16", False, Config(128, 64, 8, 3), launch) for launch in (None, STANDARD_LAUNCH)]
index = {n: (i,) for i, n in enumerate(sources[0].fn.arg_names)}
print(json.dumps([dict(ok=r.ok, problems=r.problems(), launch=r.launch, group=src.constants.get(index["group"]),
                       seq_q=src.attrs.get(index["seq_q"], []), stride_qm=src.attrs.get(index["stride_qm"], []))
                  for r, src in zip(reports, sources)]))
"""


def test_triton_compile_specialises_like_a_launch():
    # Triton specialises every launch on its integers: a 1 becomes a constant and a multiple
    # of 16 is marked divisible. The gate compiles the portable kernel that way too. (Out of
    # process: the interpreter's functions cannot be compiled.)
    import os
    import subprocess
    import sys

    from flashcore.profile.resources import STANDARD_LAUNCH

    env = {**os.environ, "TRITON_INTERPRET": "0"}
    proc = subprocess.run([sys.executable, "-c", _SPY], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    generic, launch = json.loads(proc.stdout.strip().splitlines()[-1])
    assert generic["ok"] and launch["ok"], (generic["problems"], launch["problems"])
    assert generic["launch"] is None and launch["launch"] == STANDARD_LAUNCH
    assert generic["group"] is None and launch["group"] == 1  # MHA: group = 1, a constant
    assert ["tt.divisibility", 16] not in generic["seq_q"] and ["tt.divisibility", 16] in launch["seq_q"]
    assert ["tt.divisibility", 16] in generic["stride_qm"]  # aligned rows in both


_LOG_SPY = """
import json, subprocess
from flashcore.kernels.triton_fwd import Config
from flashcore.profile import resources
ours, real = [], subprocess.run
# The gate's own ptxas run captures its output; the one that builds Triton's cubin writes a log file.
subprocess.run = lambda cmd, *a, **k: (ours.append(cmd[0] == resources._ptxas() and bool(k.get("capture_output"))),
                                       real(cmd, *a, **k))[1]
reports = []
for _ in range(2):  # fresh, then from Triton's cache
    before = len(ours)
    r = resources.compile_triton_fwd(80, 64, "bf16", True, Config(128, 64, 8, 3))
    reports.append(dict(usage=[r.registers, r.spill_bytes, r.stack_bytes, r.shared_bytes], ok=r.ok,
                        our_ptxas=sum(ours[before:])))
print(json.dumps(reports))
"""


def test_the_gate_reads_the_building_ptxas_log_and_runs_ptxas_itself_on_a_cache_hit(tmp_path):
    # The fresh compile's report comes from the log of the ptxas run that built the cubin (no
    # second run); a cached cubin has no log, so the gate runs ptxas on its PTX: same report.
    import os
    import subprocess
    import sys

    env = {**os.environ, "TRITON_INTERPRET": "0", "TRITON_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", _LOG_SPY], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    fresh, cached = json.loads(proc.stdout.strip().splitlines()[-1])
    assert fresh["ok"] and fresh["usage"][0] > 0 and fresh["usage"][3] > 0
    assert fresh["usage"] == cached["usage"]
    assert (fresh["our_ptxas"], cached["our_ptxas"]) == (0, 1)


def test_the_gate_reports_the_worse_of_the_generic_and_the_launch_compile(monkeypatch):
    from flashcore.profile import resources

    def fake(arch, head_dim, dtype, causal, config, launch=None, twins=()):
        return [resources.ResourceReport(a, head_dim, dtype, causal, config.as_dict(), registers=128,
                                         spill_bytes=48 if launch and a == arch else 0, stack_bytes=0,
                                         shared_bytes=1024, smem_limit=99 * 1024, launch=launch)
                for a in (arch, *twins)]

    monkeypatch.setattr(resources, "compile_triton_fwd_twins", fake)
    report, twin = offline._compile(offline.Task(80, 64, "bf16", False, Config(128, 64, 8, 3), "triton"), (89,))
    assert report.spill_bytes == 48 and "specialised as a launch" in report.problems()[0]
    assert (twin.arch, twin.spill_bytes) == (89, 0)


def test_sm89_compiles_take_the_sm80_ptx_of_the_same_build(tuned):
    tasks = offline.plan(archs=(80, 89), head_dims=(64,), seq_q=(4096,))
    twins = [t for t in tasks if t.ptx_from is not None]
    assert twins and all(t.arch == 89 and t.ptx_from == 80 for t in twins)
    shared = {t.key()[1:] for t in tasks if t.arch == 80}
    assert all(t.key()[1:] in shared for t in twins)
    assert all(t.key()[1:] not in shared for t in tasks if t.arch == 89 and t.ptx_from is None)


def test_run_maps_each_twin_to_its_sources_compile_and_compiles_orphans_itself(monkeypatch):
    calls = []

    def fake(task, twins=()):
        calls.append((task.arch, twins))
        return [f"{arch}:{task.config.block_m}" for arch in (task.arch, *twins)]

    monkeypatch.setattr(offline, "_compile", fake)
    monkeypatch.setattr(offline, "_interpreting", lambda: False)  # in process: the fake cannot be pickled
    a80, a89 = (offline.Task(arch, 64, "bf16", False, Config(128, 64, 8, 3), ptx_from=80 if arch == 89 else None)
                for arch in (80, 89))
    orphan = offline.Task(89, 64, "bf16", False, Config(64, 64, 4, 3), ptx_from=80)  # no sm_80 build of its own
    got = offline.run([a89, orphan, a80], jobs=1)
    assert [r for _, r in got] == ["89:128", "89:64", "80:128"]
    assert sorted(calls) == [(80, (89,)), (89, ())]


_TWIN_PTX = """
import json, re
from flashcore.kernels.triton_fwd import Config
from flashcore.profile import resources
ptx = {}
real = resources.compile_with_ptxas_log
def spy(src, target, options):
    compiled, log = real(src, target, options)
    ptx[target.arch] = compiled.asm["ptx"]
    return compiled, log
resources.compile_with_ptxas_log = spy
for arch in (80, 89):
    resources.compile_triton_fwd(arch, 72, "fp16", True, Config(64, 64, 4, 2, split_kv=4), resources.STANDARD_LAUNCH)
twin = resources.compile_triton_fwd_twins(80, 72, "fp16", True, Config(64, 64, 4, 2, split_kv=4),
                                          resources.STANDARD_LAUNCH, (89,))[1]
own = resources.compile_triton_fwd(89, 72, "fp16", True, Config(64, 64, 4, 2, split_kv=4), resources.STANDARD_LAUNCH)
print(json.dumps(dict(same=resources.retarget(ptx[80], 89) == ptx[89], targets=re.findall(r"\\.target \\w+", ptx[89]),
                      twin=[twin.arch, twin.registers, twin.spill_bytes, twin.shared_bytes, twin.smem_limit],
                      own=[own.arch, own.registers, own.spill_bytes, own.shared_bytes, own.smem_limit])))
"""


def test_triton_emits_the_same_ptx_for_sm80_and_sm89(tmp_path):
    # What PTX_TWINS rests on: were Triton to emit sm_89-specific code, the gate would check
    # sm_89 on code that never runs there. (A padded head dim, causal, split: a busy build.)
    import os
    import subprocess
    import sys

    env = {**os.environ, "TRITON_INTERPRET": "0", "TRITON_CACHE_DIR": str(tmp_path)}
    proc = subprocess.run([sys.executable, "-c", _TWIN_PTX], env=env, capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr[-2000:]
    out = json.loads(proc.stdout.strip().splitlines()[-1])
    assert out["targets"] == [".target sm_89"] and out["same"]
    assert out["twin"] == out["own"] and out["twin"][0] == 89


_LOSS = "ptxas info    : ({code}) Potential Performance Loss: wgmma.mma_async instructions are serialized due to {why}"


@pytest.mark.parametrize("code, why", [
    ("C7512", "insufficient register resources for the wgmma pipeline"),
    ("C7515", "non wgmma instructions defining accumulator registers of a wgmma between start and end of the "
              "pipeline stage"),
    ("C7510", "wgmma pipeline crossing function boundary at a function call"),  # a noinline consumer
])
def test_every_wgmma_serialisation_fails_the_gate_with_its_reason(code, why):
    from flashcore.profile import resources

    log = "\n".join(["ptxas info    : 11 bytes gmem", _LOSS.format(code=code, why=why) + " in the function 'k'",
                     "ptxas info    : Used 128 registers, used 2 barriers"])
    assert resources.wgmma_serialization(log) == f"{code}: {why}"
    report = resources.ResourceReport(90, 64, "bf16", False, {}, registers=128, spill_bytes=0, stack_bytes=0,
                                      shared_bytes=1024, smem_limit=227 * 1024,
                                      wgmma_serialized=resources.wgmma_serialization(log))
    assert not report.ok and report.problems() == [f"ptxas serialised wgmma ({code}: {why})"]


def test_a_clean_ptxas_log_reports_no_serialisation():
    from flashcore.profile import resources

    log = "ptxas info    : Compiling entry function 'k' for 'sm_90a'\nptxas info    : Used 168 registers"
    assert resources.wgmma_serialization(log) == ""
