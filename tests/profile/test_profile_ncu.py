"""ncu: finding it, the command line, and parsing its CSV (raw and details pages)."""

from pathlib import Path

import pytest

from flashcore.profile import ncu

FIXTURES = Path(__file__).parent / "fixtures"
RAW = FIXTURES / "HANDWRITTEN_ncu_raw_flashcore_h100.csv"
DETAILS = FIXTURES / "HANDWRITTEN_ncu_details_sdpa_cudnn_h100.csv"


# ----------------------------------------------------------------------------------
# Parsing
# ----------------------------------------------------------------------------------
def test_raw_page_parses_one_launch_in_base_units():
    (rec,) = ncu.parse_csv(RAW.read_text())
    assert rec.name == "_attn_fwd_kernel"
    assert (rec.block, rec.grid, rec.cc) == ("(256, 1, 1)", "(32, 64, 1)", "9.0")
    assert rec.metrics["gpu__time_duration.sum"] == 412480.0  # "412,480" nsecond
    assert rec.metrics["launch__shared_mem_per_block_dynamic"] == 131072.0
    assert rec.metrics["sm__inst_executed_pipe_tensor_op_gmma.sum"] == 4194304.0


def test_raw_fixture_has_every_metric_requested_on_hopper():
    # The fixture stands for a recording of our own command: same metric set.
    (rec,) = ncu.parse_csv(RAW.read_text())
    assert set(rec.metrics) == set(ncu.metrics_for(90))


def test_details_page_scales_prefixed_units_and_keeps_na_as_none():
    (rec,) = ncu.parse_csv(DETAILS.read_text())
    assert rec.name.startswith("cudnn_generated_fort_native_sdpa_sm90_flash_fprop")
    assert rec.metrics["gpu__time_duration.sum"] == pytest.approx(301760.0)  # 301.76 usecond
    assert rec.metrics["launch__shared_mem_per_block_dynamic"] == pytest.approx(197630.0)  # Kbyte = 1000 B
    assert rec.metrics["sm__inst_executed_pipe_tensor_op_gmma.sum"] == pytest.approx(8.39e6)  # Minst
    assert rec.metrics["l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum"] is None  # n/a


def test_summary_derives_conflict_ratio_shared_bytes_and_ctas():
    (rec,) = ncu.parse_csv(RAW.read_text())
    s = ncu.summarize(rec)
    assert s["duration_us"] == pytest.approx(412.48)
    assert s["tensor_pipe_pct"] == pytest.approx(47.32)
    assert s["bank_conflict_pct"] == pytest.approx(100 * 1412032 / 52428800)
    assert s["bank_conflict_ld_pct"] == pytest.approx(100 * 12288 / 4194304)
    assert s["bank_conflict_st_pct"] == 0.0
    assert s["smem_bytes"] == 131072
    assert s["ctas_per_sm"] == 1  # min of the four occupancy limits
    assert s["registers"] == 246


def test_summary_of_missing_counters_is_none_not_zero():
    s = ncu.summarize(ncu.KernelRecord("0", "k"))
    assert s["bank_conflict_pct"] is None and s["ctas_per_sm"] is None and s["smem_bytes"] is None


@pytest.mark.parametrize("text,unit,expected", [
    ("1,205.00", "usecond", (1205000.0, "ns")),
    ("2.5", "ms", (2.5e6, "ns")),
    ("229.376", "Kbyte/block", (229376.0, "byte/block")),
    ("3", "Gbyte", (3e9, "byte")),
    ("45.5", "%", (45.5, "%")),
    ("n/a", "%", (None, "%")),
    ("", "", (None, "")),
])
def test_units(text, unit, expected):
    value, base = ncu.to_base(ncu.parse_number(text), unit)
    assert (pytest.approx(value) if value is not None else None, base) == expected


def test_output_without_a_table_parses_to_nothing():
    assert ncu.parse_csv("==PROF== Connected\n==WARNING== No kernels were profiled.\n") == []


# ----------------------------------------------------------------------------------
# Metrics and the command
# ----------------------------------------------------------------------------------
def test_gmma_count_only_requested_on_hopper():
    gmma = "sm__inst_executed_pipe_tensor_op_gmma.sum"
    assert gmma in ncu.metrics_for(90)
    assert gmma not in ncu.metrics_for(80) and gmma not in ncu.metrics_for(89)
    assert "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active" in ncu.metrics_for(80)
    assert ncu.metrics_for(80, ("x.sum",))[-1] == "x.sum"


def test_command_limits_profiling_to_one_warm_kernel_and_never_touches_clocks():
    cmd = ncu.build_command("/x/ncu", "_attn_fwd_kernel", 5, 1, ["a.sum", "b.pct"], "/t/ncu.csv",
                            ["python", "-m", "flashcore.profile.target"])
    joined = " ".join(cmd)
    assert "--clock-control none" in joined
    assert "--kernel-name regex:_attn_fwd_kernel" in joined
    assert "--launch-skip 5 --launch-count 1" in joined
    assert "--metrics a.sum,b.pct" in joined
    assert "--csv --page raw" in joined and "--log-file /t/ncu.csv" in joined
    assert cmd[-3:] == ["python", "-m", "flashcore.profile.target"]  # the target comes last


def test_kernel_regex_defaults_and_overrides():
    assert ncu.kernel_regex("flashcore", {}) == "_attn_fwd_kernel|_hopper_fwd_kernel|_gluon_fwd"  # auto: any family
    assert ncu.kernel_regex("flashcore-triton", {}) == "_attn_fwd_kernel"
    assert ncu.kernel_regex("flashcore-new", {}) == ncu.KERNEL_REGEX["flashcore"]  # family default
    assert ncu.kernel_regex("sdpa-cudnn", {"sdpa-cudnn": "mine"}) == "mine"
    assert ncu.kernel_regex("fa4", {"*": "all"}) == "all"
    with pytest.raises(ncu.NcuError, match="--kernel-regex mystery=REGEX"):
        ncu.kernel_regex("mystery", {})


# ----------------------------------------------------------------------------------
# Finding ncu, and its failures
# ----------------------------------------------------------------------------------
def test_missing_ncu_is_a_clear_error(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))
    with pytest.raises(ncu.NcuUnavailable) as err:
        ncu.find_ncu(search=(str(tmp_path / "nowhere/*/ncu"),))
    msg = str(err.value)
    assert "ncu) not found" in msg and "--ncu" in msg and "--offline" in msg


def test_explicit_ncu_must_be_executable(tmp_path):
    with pytest.raises(ncu.NcuUnavailable, match="--ncu: expected an executable"):
        ncu.find_ncu(str(tmp_path / "ncu"))


def test_ncu_found_in_install_folder(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path / "empty"))
    exe = tmp_path / "nsight-compute" / "2025.1.0" / "ncu"
    exe.parent.mkdir(parents=True)
    exe.write_text("#!/bin/sh\n")
    exe.chmod(0o755)
    assert ncu.find_ncu(search=(str(tmp_path / "nsight-compute/*/ncu"),)) == str(exe)


def test_unreadable_counters_name_the_fix():
    text = "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters"
    with pytest.raises(ncu.NcuUnavailable, match="NVreg_RestrictProfilingToAdminUsers=0"):
        ncu.check_output(text, 1, "_attn_fwd_kernel")


def test_no_matching_kernel_names_the_regex():
    with pytest.raises(ncu.NcuError, match="'_attn_fwd_kernel'.*--kernel-regex"):
        ncu.check_output("==WARNING== No kernels were profiled.\n", 0, "_attn_fwd_kernel")


def test_target_crash_shows_its_traceback():
    text = ("==PROF== Connected to process 1\nTraceback (most recent call last):\n"
            "RuntimeError: CUDA error: out of memory\n==ERROR== The application returned an error code (1).\n")
    with pytest.raises(ncu.NcuError, match="(?s)error code \\(1\\).*CUDA error: out of memory"):
        ncu.check_output(text, 1, "k")


def test_other_ncu_errors_are_quoted():
    with pytest.raises(ncu.NcuError, match="Failed to find metric"):
        ncu.check_output("==ERROR== Failed to find metric sm__bogus\n", 1, "k")
    ncu.check_output("==PROF== Disconnected\n", 0, "k")  # a clean run raises nothing


def test_recorded_h100_csv_parses():
    # Recorded on the H100 (2026-11-22) with our metric set minus the ld/st splits and
    # occupancy extras: benchmarks/results/2026-11-22-h100-profile/ncu_raw_flashcore_h100.csv.
    (rec,) = ncu.parse_csv((FIXTURES / "recorded_ncu_raw_flashcore_h100.csv").read_text())
    assert rec.name == "_hopper_fwd_kernel"
    s = ncu.summarize(rec)
    assert s["duration_us"] == pytest.approx(2081.984)
    assert s["tensor_pipe_pct"] == pytest.approx(55.84)
    assert s["gmma_inst"] == 16777216 and s["registers"] == 187
    assert s["bank_conflict_pct"] == 0.0 and s["smem_bytes"] == 230400
