"""Console tables for ``flashcore profile`` (rich): providers side by side, gates, offline."""

from __future__ import annotations

import sys

from rich.console import Console
from rich.table import Table


def console() -> Console:
    # CI logs are not terminals: give rich a width that keeps the table on one line.
    return Console() if sys.stdout.isatty() else Console(width=160)


def _fmt(value, spec: str) -> str:
    if value is None:
        return "-"
    return spec.format(value)


# (label, metric key, format): the rows of the side-by-side table.
PROFILE_ROWS = (
    ("duration (us)", "duration_us", "{:,.1f}"),
    ("tensor pipe active (%)", "tensor_pipe_pct", "{:.1f}"),
    ("wgmma instructions", "gmma_inst", "{:,.0f}"),
    ("mma.sync instructions", "hmma_inst", "{:,.0f}"),
    ("DRAM throughput (%)", "dram_pct", "{:.1f}"),
    ("L2 hit rate (%)", "l2_hit_pct", "{:.1f}"),
    ("bank conflicts (% wavefronts)", "bank_conflict_pct", "{:.2f}"),
    ("  loads (%)", "bank_conflict_ld_pct", "{:.2f}"),
    ("  stores (%)", "bank_conflict_st_pct", "{:.2f}"),
    ("instruction fetch stalls (% warps)", "fetch_stall_pct", "{:.1f}"),
    ("achieved occupancy (%)", "achieved_occupancy_pct", "{:.1f}"),
    ("warps active / cycle", "warps_active", "{:.1f}"),
    ("CTAs/SM (theoretical)", "ctas_per_sm", "{:.0f}"),
    ("registers / thread", "registers", "{:.0f}"),
    ("shared / block (KiB)", "smem_kib", "{:.1f}"),
    ("compile: registers", "compile_registers", "{:.0f}"),
    ("compile: spill bytes", "spill_bytes", "{:.0f}"),
    ("compile: shared (KiB)", "compile_smem_kib", "{:.1f}"),
)


def profile_table(title: str, results: list[dict], extra: tuple[str, ...] = ()) -> Table:
    """Our metric rows, then one row per ``--extra-metrics`` name, as ncu reported it."""
    table = Table(title=title, title_justify="left")
    table.add_column("metric")
    for r in results:
        table.add_column(r["provider"], justify="right")
    table.add_row("kernel", *[_kernel_cell(r) for r in results])
    for label, key, spec in PROFILE_ROWS:
        table.add_row(label, *[_fmt(r.get("metrics", {}).get(key), spec) for r in results])
    for name in extra:
        table.add_row(name, *[_fmt(r.get("ncu_raw", {}).get(name), "{:,.3g}") for r in results])
    return table


def _kernel_cell(result: dict) -> str:
    if result["status"] != "ok":
        return f"{result['status']}: {result.get('message', '')}"[:60]
    name = result.get("kernel", "?")
    return name if len(name) <= 40 else name[:37] + "..."


def gates_table(gate_results) -> Table:
    table = Table(title="gates (flashcore only)", title_justify="left")
    for col in ("gate", "provider", "result", "expected", "detail"):
        table.add_column(col)
    style = {"pass": "green", "fail": "bold red", "skip": "dim"}
    for r in gate_results:
        table.add_row(r.gate, r.provider, f"[{style[r.status]}]{r.status.upper()}[/]", r.expected, r.message)
    return table


def _head_dims(dims: list[int]) -> str:
    return str(dims[0]) if len(dims) == 1 else f"{dims[0]}-{dims[-1]} ({len(dims)})"


def _config_text(c: dict) -> str:
    text = f"{c['block_m']}x{c['block_n']} w{c['num_warps']} s{c['num_stages']}"
    if c.get("split_kv", 1) > 1:
        text += f" split{c['split_kv']}"
    if c.get("kv_ctas", 1) > 1:
        text += f" ctas{c['kv_ctas']}"
    if c.get("lazy_rescale") is False:  # Gluon's small-grid builds: same tiles, other binary
        text += " eager"
    if c.get("warp_specialize"):
        text += " ws" + (" pp" if c.get("pingpong") else "") + (" persistent" if c.get("persistent") else "")
        text += " stream-k" if c.get("stream_k") else ""
    text += f" packed{c['packed_sums']}" if c.get("packed_sums") else ""
    text += " masked-free" if c.get("masked_free") else ""
    return text


def offline_table(rows: list[dict]) -> Table:
    table = Table(title="offline compile report (Triton + ptxas)", title_justify="left")
    for col in ("arch", "kernel", "head dims", "dtype", "causal", "config (MxN w s)", "regs", "spill B", "shared KiB",
                "limit KiB", "used by", "result"):
        table.add_column(col, justify="right" if col in ("regs", "spill B", "shared KiB", "limit KiB") else "left")
    for r in rows:
        c = r["config"]
        result = "[green]ok[/]" if r["ok"] else "[bold red]" + "; ".join(r["problems"]) + "[/]"
        table.add_row(
            f"sm_{r['arch']}", r.get("family", "triton"), _head_dims(r["head_dims"]), r["dtype"],
            "yes" if r["causal"] else "no", _config_text(c), str(r["registers"]),
            str(r["spill_bytes"]), f"{r['shared_bytes'] / 1024:.1f}", f"{r['smem_limit'] / 1024:.0f}",
            ",".join(r["sources"]), result,
        )
    return table


# The opcodes that set a softmax tile's cost, shown as columns; the rest add up in "other".
SASS_COLUMNS = ("HGMMA", "HMMA", "MUFU", "FFMA", "FADD", "FMUL", "F2FP", "PRMT", "SHFL", "MOV")


def sass_table(loops: list[dict]) -> Table:
    table = Table(title="KV loops (SASS; common path: vote-guarded branches not taken)", title_justify="left")
    for col in ("loop", "instructions", "common", "skipped", *SASS_COLUMNS, "other"):
        table.add_column(col, justify="left" if col == "loop" else "right")
    for lp in loops:
        ops = lp["opcodes"]
        other = lp["common"] - sum(ops.get(op, 0) for op in SASS_COLUMNS)
        table.add_row(f"{lp['start']}-{lp['end']}", str(lp["instructions"]), str(lp["common"]),
                      str(lp["instructions"] - lp["common"]), *(str(ops.get(op, 0)) for op in SASS_COLUMNS), str(other))
    return table
