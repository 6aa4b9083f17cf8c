"""Nsight Compute: find ``ncu``, build the command, run it, parse its CSV.

One attention call per provider is profiled, and only the attention kernel
itself: a kernel-name regex, a launch skip past the warm-up calls, a launch count
of one call's kernels. Clocks are never touched (``--clock-control none``).

Metric names were checked against public ncu captures (see docs/profile.md). On
Hopper, wgmma work is counted in ``sm__pipe_tensor_op_hmma_cycles_active`` (an
H100 capture shows it equal to ``sm__pipe_tensor_cycles_active`` for a wgmma
kernel); ``sm__inst_executed_pipe_tensor_op_gmma`` counts wgmma instructions, so
a nonzero count proves the kernel used wgmma rather than mma.sync.
"""

from __future__ import annotations

import csv
import glob
import io
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field

# Where ncu lives when it is not on PATH, newest first within each pattern.
NCU_SEARCH = (
    "/usr/local/cuda/bin/ncu",
    "/usr/local/cuda-*/bin/ncu",
    "/opt/nvidia/nsight-compute/*/ncu",
    "/usr/local/cuda/nsight-compute*/ncu",
)


class NcuError(RuntimeError):
    """ncu failed for one provider: profiled nothing, or the target failed."""


class NcuUnavailable(NcuError):
    """ncu is missing or cannot read the counters: no provider can be profiled."""


# The attention kernel's name per provider (regex, searched in the bare function
# name). A provider not listed needs --kernel-regex PROVIDER=REGEX.
KERNEL_REGEX = {
    # flashcore's auto dispatch runs the portable kernel or, on sm_90, the Gluon or TMA one.
    "flashcore": "_attn_fwd_kernel|_hopper_fwd_kernel|_gluon_fwd",
    "flashcore-triton": "_attn_fwd_kernel",  # kernels/triton_fwd.py
    "flashcore-hopper": "_hopper_fwd_kernel",  # kernels/hopper_fwd.py
    "flashcore-gluon": "_gluon_fwd",  # kernels/gluon_fwd.py (plain and warp-specialised)
    "sdpa-flash": "flash_fwd|pytorch_flash",  # PyTorch's vendored FlashAttention-2
    "sdpa-efficient": "fmha_cutlassF|attention_kernel",  # PyTorch's mem-efficient (xformers cutlass)
    "sdpa-cudnn": "cudnn|sm90_flash|fmha",  # cuDNN's generated SDPA kernels
    "fa2": "flash_fwd",
    "fa3": "flash_fwd|FlashAttnFwd",
    "fa4": "[Ff]lash|FlashAttentionForward",  # CuTe DSL names embed the class name
}


def kernel_regex(provider: str, overrides: dict[str, str]) -> str:
    """The regex for ``provider``: an override, an exact default, or its family's."""
    if provider in overrides:
        return overrides[provider]
    if "*" in overrides:
        return overrides["*"]
    name = provider.split("[")[0]  # a fixed config (flashcore-gluon[...]) runs its family's kernels
    family = name if name in KERNEL_REGEX else name.split("-")[0]
    if family in KERNEL_REGEX:
        return KERNEL_REGEX[family]
    raise NcuError(
        f"no default kernel-name regex for provider {provider!r} (known: {', '.join(sorted(KERNEL_REGEX))}); "
        f"pass --kernel-regex {provider}=REGEX"
    )


# ----------------------------------------------------------------------------------
# Metrics
# ----------------------------------------------------------------------------------
@dataclass(frozen=True)
class Metric:
    key: str  # our name, used in tables, JSON and gates
    ncu: str  # the ncu metric it is read from
    label: str
    min_arch: int = 0  # ncu rejects metrics a chip lacks, so request only those it has


METRICS = (
    Metric("duration_ns", "gpu__time_duration.sum", "duration"),
    Metric("tensor_pipe_pct", "sm__pipe_tensor_op_hmma_cycles_active.avg.pct_of_peak_sustained_active",
           "tensor pipe active (% of peak, active cycles)"),
    Metric("hmma_inst", "sm__inst_executed_pipe_tensor_op_hmma.sum", "mma.sync (hmma) instructions"),
    Metric("gmma_inst", "sm__inst_executed_pipe_tensor_op_gmma.sum", "wgmma (gmma) instructions", min_arch=90),
    Metric("dram_pct", "dram__throughput.avg.pct_of_peak_sustained_elapsed", "DRAM throughput (% of peak)"),
    Metric("l2_hit_pct", "lts__t_sector_hit_rate.pct", "L2 hit rate (%)"),
    Metric("smem_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum", "shared bank conflicts (all ops)"),
    Metric("smem_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared.sum", "shared wavefronts (all ops)"),
    Metric("smem_ld_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_ld.sum", "shared load conflicts"),
    Metric("smem_ld_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_ld.sum", "shared load wavefronts"),
    Metric("smem_st_conflicts", "l1tex__data_bank_conflicts_pipe_lsu_mem_shared_op_st.sum", "shared store conflicts"),
    Metric("smem_st_wavefronts", "l1tex__data_pipe_lsu_wavefronts_mem_shared_op_st.sum", "shared store wavefronts"),
    # Warps waiting for an instruction fetch: 6.6% in our D=64 causal S8k kernel, whose three
    # consumer warpgroups each carry their own copy of the code, against cuDNN's 1.5% (kernel log v26).
    Metric("fetch_stall_pct", "smsp__warp_issue_stalled_no_instruction_per_warp_active.pct",
           "warps waiting for an instruction fetch (% of active warps)"),
    Metric("achieved_occupancy_pct", "sm__warps_active.avg.pct_of_peak_sustained_active", "achieved occupancy (%)"),
    Metric("warps_active", "sm__warps_active.avg.per_cycle_active", "warps active per cycle"),
    Metric("theoretical_occupancy_pct", "sm__maximum_warps_per_active_cycle_pct", "theoretical occupancy (%)"),
    Metric("registers", "launch__registers_per_thread", "registers per thread"),
    Metric("smem_static_bytes", "launch__shared_mem_per_block_static", "static shared memory per block"),
    Metric("smem_dynamic_bytes", "launch__shared_mem_per_block_dynamic", "dynamic shared memory per block"),
    Metric("limit_registers", "launch__occupancy_limit_registers", "CTAs/SM allowed by registers"),
    Metric("limit_shared_mem", "launch__occupancy_limit_shared_mem", "CTAs/SM allowed by shared memory"),
    Metric("limit_warps", "launch__occupancy_limit_warps", "CTAs/SM allowed by warps"),
    Metric("limit_blocks", "launch__occupancy_limit_blocks", "CTAs/SM allowed by the block limit"),
)


def metrics_for(arch: int, extra: tuple[str, ...] = ()) -> list[str]:
    """The ncu metric names to request on a chip of compute capability ``arch``."""
    names = [m.ncu for m in METRICS if arch >= m.min_arch]
    return names + [e for e in extra if e not in names]


# ----------------------------------------------------------------------------------
# Finding and running ncu
# ----------------------------------------------------------------------------------
def find_ncu(explicit: str | None = None, search: tuple[str, ...] | None = None) -> str:
    """The ncu executable: ``explicit``, else PATH, else the usual install folders."""
    search = NCU_SEARCH if search is None else search
    if explicit:
        if os.path.isfile(explicit) and os.access(explicit, os.X_OK):
            return explicit
        raise NcuUnavailable(f"--ncu: expected an executable ncu, got {explicit!r} (not an executable file)")
    found = shutil.which("ncu")
    if found:
        return found
    for pattern in search:
        for path in sorted(glob.glob(pattern), reverse=True):
            if os.access(path, os.X_OK):
                return path
    raise NcuUnavailable(
        "Nsight Compute (ncu) not found: looked on PATH and in " + ", ".join(search) + ". "
        "Install Nsight Compute (it ships with the CUDA toolkit), add its folder to PATH, "
        "or pass --ncu /path/to/ncu. Without a GPU, use `flashcore profile --offline`."
    )


def ncu_version(ncu: str) -> str:
    try:
        proc = subprocess.run([ncu, "--version"], capture_output=True, text=True, timeout=60)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"unknown ({exc})"
    lines = [line for line in proc.stdout.splitlines() if line.strip()]
    return lines[-1].strip() if lines else "unknown"


def build_command(
    ncu: str,
    kernel_regex: str,
    launch_skip: int,
    launch_count: int,
    metrics: list[str],
    log_file: str,
    target: list[str],
) -> list[str]:
    """The ncu command line that profiles ``target``'s attention kernel once."""
    return [
        ncu,
        "--target-processes", "all",
        # Never change the GPU clocks (ncu locks them to base by default).
        "--clock-control", "none",
        # Match on the bare function name: the demangled form carries arguments.
        "--kernel-name-base", "function",
        "--kernel-name", f"regex:{kernel_regex}",
        # The skip counts only launches that match the regex: the warm-up calls.
        "--launch-skip", str(launch_skip),
        "--launch-count", str(launch_count),
        "--metrics", ",".join(metrics),
        "--csv", "--page", "raw",
        # ncu 2025.3 refuses --print-metric-name with the raw page (details only); raw
        # rows are keyed by metric name already.
        "--print-units", "base",
        "--print-kernel-base", "function",
        # The CSV goes to a file so the target's own output cannot corrupt it.
        "--log-file", log_file,
        *target,
    ]


# Things ncu prints when it cannot do its job, with what to do about each.
_PERMISSION = re.compile(r"ERR_NVGPUCTRPERM|permission to access NVIDIA GPU Performance Counters", re.I)
_NO_KERNELS = re.compile(r"No kernels were profiled", re.I)
_ERROR_LINE = re.compile(r"^==ERROR==.*$", re.M)


def check_output(text: str, returncode: int, kernel_regex: str) -> None:
    """Raise :class:`NcuError` with the cause and the fix when ncu failed."""
    if _PERMISSION.search(text):
        raise NcuUnavailable(
            "ncu cannot read the GPU performance counters (ERR_NVGPUCTRPERM). Run as root, or "
            "allow profiling for all users (nvidia driver option NVreg_RestrictProfilingToAdminUsers=0; "
            "in a container add --cap-add SYS_ADMIN). See https://developer.nvidia.com/ERR_NVGPUCTRPERM"
        )
    errors = _ERROR_LINE.findall(text)
    if errors:
        # The target's own traceback (if it crashed) is in the output, before ncu's errors.
        app = [line for line in text.splitlines() if line.strip() and not line.startswith(("==", '"'))]
        detail = ("\nlast output of the target:\n" + "\n".join(app[-12:])) if app else ""
        raise NcuError("ncu failed: " + " | ".join(e.strip() for e in errors[:5]) + detail)
    if _NO_KERNELS.search(text):
        raise NcuError(
            f"ncu profiled no kernel matching regex {kernel_regex!r}: the kernel name differs or "
            "fewer launches happened than the skip. List the names with `ncu --print-summary per-kernel "
            "python -m flashcore.profile.target ...` and pass --kernel-regex PROVIDER=REGEX"
        )
    if returncode != 0:
        tail = "\n".join(text.strip().splitlines()[-15:])
        raise NcuError(f"ncu exited with status {returncode}; last output:\n{tail}")


@dataclass
class NcuRun:
    command: list[str]
    returncode: int
    output: str  # ncu's and the target's console output, for error messages
    csv_text: str


def run(command: list[str], log_file: str, timeout_s: float) -> NcuRun:
    try:
        proc = subprocess.run(command, capture_output=True, text=True, timeout=timeout_s)
    except subprocess.TimeoutExpired as exc:
        raise NcuError(f"ncu did not finish in {timeout_s:.0f} s (--timeout); command: {' '.join(command)}") from exc
    except OSError as exc:
        raise NcuError(f"could not start ncu ({command[0]}): {exc}") from exc
    csv_text = ""
    if os.path.exists(log_file):
        with open(log_file, encoding="utf-8", errors="replace") as f:
            csv_text = f.read()
    return NcuRun(command, proc.returncode, proc.stdout + proc.stderr + csv_text, csv_text)


# ----------------------------------------------------------------------------------
# Parsing: --page raw (one row per launch) and --page details (one row per metric)
# ----------------------------------------------------------------------------------
@dataclass
class KernelRecord:
    """One profiled launch. ``metrics`` are in base units: ns, bytes, counts, %."""

    launch_id: str
    name: str
    block: str = ""
    grid: str = ""
    device: str = ""
    cc: str = ""
    metrics: dict[str, float | None] = field(default_factory=dict)
    units: dict[str, str] = field(default_factory=dict)


_ID_COLUMNS = ("ID", "Process ID", "Process Name", "Host Name", "Kernel Name", "Kernel Time", "Context",
               "Stream", "Block Size", "Grid Size", "Device", "CC", "Section Name")
_TIME_NS = {"ns": 1.0, "nsecond": 1.0, "us": 1e3, "usecond": 1e3, "ms": 1e6, "msecond": 1e6,
            "s": 1e9, "second": 1e9}
_SI_PREFIX = re.compile(r"^([KMGT])(byte|inst|sector|cycle|warp|request|wavefront)(.*)$")
_SCALE = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}  # ncu's prefixes are decimal: 1 Kbyte = 1000 bytes


def parse_number(text: str) -> float | None:
    """``"1,205.00"`` -> 1205.0; ``"n/a"`` or empty -> None."""
    text = text.strip().replace(",", "")
    if not text or text.lower() in ("n/a", "nan", "(!) n/a"):
        return None
    try:
        return float(text)
    except ValueError:
        return None


def to_base(value: float | None, unit: str) -> tuple[float | None, str]:
    """Scale a value printed in ``unit`` to base units (ns for time, bytes, counts)."""
    unit = unit.strip()
    if value is None:
        return None, unit
    if unit in _TIME_NS:
        return value * _TIME_NS[unit], "ns"
    match = _SI_PREFIX.match(unit)
    if match:
        return value * _SCALE[match.group(1)], match.group(2) + match.group(3)
    return value, unit


def _csv_rows(text: str) -> list[list[str]]:
    # ncu mixes ==PROF== lines and the target's output with the CSV: keep quoted rows.
    lines = [line for line in text.splitlines() if line.startswith('"')]
    return list(csv.reader(io.StringIO("\n".join(lines))))


def parse_csv(text: str) -> list[KernelRecord]:
    """Parse ``ncu --csv`` output of ``--page raw`` or ``--page details``."""
    rows = _csv_rows(text)
    if not rows or rows[0][:1] != ["ID"]:
        return []
    header = rows[0]
    if "Metric Name" in header and "Metric Value" in header:
        return _parse_details(header, rows[1:])
    return _parse_raw(header, rows[1:])


def _record(cols: dict[str, str]) -> KernelRecord:
    return KernelRecord(
        launch_id=cols.get("ID", ""), name=cols.get("Kernel Name", ""), block=cols.get("Block Size", ""),
        grid=cols.get("Grid Size", ""), device=cols.get("Device", ""), cc=cols.get("CC", ""),
    )


def _store(rec: KernelRecord, name: str, raw_value: str, unit: str) -> None:
    value, base_unit = to_base(parse_number(raw_value), unit)
    rec.metrics[name] = value
    rec.units[name] = base_unit


def _parse_raw(header: list[str], rows: list[list[str]]) -> list[KernelRecord]:
    units = [""] * len(header)
    if rows and rows[0] and rows[0][0] == "":
        units, rows = rows[0], rows[1:]  # the second line holds each column's unit
    records = []
    for row in rows:
        cols = dict(zip(header, row))
        rec = _record(cols)
        for i, name in enumerate(header):
            if name not in _ID_COLUMNS and i < len(row):
                _store(rec, name, row[i], units[i] if i < len(units) else "")
        records.append(rec)
    return records


def _parse_details(header: list[str], rows: list[list[str]]) -> list[KernelRecord]:
    by_id: dict[str, KernelRecord] = {}
    for row in rows:
        cols = dict(zip(header, row))
        rec = by_id.setdefault(cols.get("ID", ""), _record(cols))
        if cols.get("Metric Name"):
            _store(rec, cols["Metric Name"], cols.get("Metric Value", ""), cols.get("Metric Unit", ""))
    return list(by_id.values())


# ----------------------------------------------------------------------------------
# From raw ncu metrics to the numbers we report and gate on
# ----------------------------------------------------------------------------------
def _ratio_pct(num: float | None, den: float | None) -> float | None:
    if num is None or den is None:
        return None
    return 100.0 * num / den if den > 0 else 0.0


def summarize(rec: KernelRecord) -> dict:
    """Our named metrics for one launch, plus the derived ones the gates use."""
    by_ncu = {m.ncu: m.key for m in METRICS}
    out = {key: rec.metrics.get(ncu) for ncu, key in by_ncu.items()}
    out["duration_us"] = None if out["duration_ns"] is None else out["duration_ns"] / 1e3
    out["bank_conflict_pct"] = _ratio_pct(out["smem_conflicts"], out["smem_wavefronts"])
    out["bank_conflict_ld_pct"] = _ratio_pct(out["smem_ld_conflicts"], out["smem_ld_wavefronts"])
    out["bank_conflict_st_pct"] = _ratio_pct(out["smem_st_conflicts"], out["smem_st_wavefronts"])
    parts = [out["smem_static_bytes"], out["smem_dynamic_bytes"]]
    out["smem_bytes"] = None if all(p is None for p in parts) else sum(p or 0 for p in parts)
    limits = [out[k] for k in ("limit_registers", "limit_shared_mem", "limit_warps", "limit_blocks")]
    known = [x for x in limits if x is not None]
    out["ctas_per_sm"] = min(known) if known else None
    return out
