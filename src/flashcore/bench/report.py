"""Reporting: terminal tables, the fast_p summary, JSON, CSV and PNG plots.

Everything here reads the flat records of :mod:`flashcore.bench.runner` (plain dicts),
so a saved JSON can be re-reported without re-running anything.

fast_p (KernelBench): over the shapes of a scope, the fraction where the subject
(``flashcore``, auto dispatch) is correct *and* ``t_baseline / t_subject > p``.
Baselines: the SDPA default (``sdpa``, no backend forced), and the best peer (the
fastest correct non-flashcore provider on that shape). Only correct baseline timings
count, and a shape without one is left out of that baseline's denominator ``n``. A
shape where the subject failed (incorrect, error, OOM, unsupported) counts as not fast.
"""

from __future__ import annotations

import csv
import json
import math
import os
import statistics
from collections import defaultdict
from pathlib import Path

from .providers import BASELINE, SUBJECT, is_peer
from .runner import RECORD_FIELDS, BenchResult

PS = (0.0, 1.0, 1.5, 2.0)
CASE_FIELDS = ("preset", "dtype", "B", "Hq", "Hkv", "Sq", "Sk", "D", "causal", "layout")


def case_key(record: dict) -> tuple:
    return tuple(record.get(f) for f in CASE_FIELDS)


def case_label(record: dict) -> str:
    heads = f"H{record['Hq']}" if record["Hq"] == record["Hkv"] else f"H{record['Hq']}/{record['Hkv']}"
    seq = f"S{record['Sq']}" if record["Sq"] == record["Sk"] else f"S{record['Sq']}/{record['Sk']}"
    return f"B{record['B']} {heads} {seq} D{record['D']}{' causal' if record['causal'] else ''}"


def by_case(records: list[dict], mode: str) -> dict[tuple, dict[str, dict]]:
    """{case key: {provider: record}} for one mode, in first-seen order."""
    grouped: dict[tuple, dict[str, dict]] = {}
    for r in records:
        if r["mode"] == mode:
            grouped.setdefault(case_key(r), {})[r["provider"]] = r
    return grouped


def _timed_ok(record: dict | None) -> float | None:
    if record and record.get("status") == "ok" and record.get("median_us"):
        return record["median_us"]
    return None


def baseline_us(cells: dict[str, dict], against: str) -> tuple[float | None, str | None]:
    """(time, provider) of the baseline on one shape: "sdpa" or "best" (fastest correct peer)."""
    if against == "sdpa":
        return _timed_ok(cells.get(BASELINE)), BASELINE
    peers = [(t, name) for name, r in cells.items() if is_peer(name) and (t := _timed_ok(r)) is not None]
    return min(peers) if peers else (None, None)


def speedup(cells: dict[str, dict], against: str, subject: str = SUBJECT) -> float | None:
    base, _ = baseline_us(cells, against)
    mine = cells.get(subject, {}).get("median_us")
    return base / mine if base and mine else None


def modes_of(records: list[dict]) -> list[str]:
    return list(dict.fromkeys(r["mode"] for r in records))


def _against(records: list[dict], mode: str, against: str, subject: str):
    """(cells, baseline time, baseline provider, the subject's time or None where it failed)
    for each shape of ``mode`` where the subject ran and the baseline has a correct timing."""
    for cells in by_case(records, mode).values():
        base, name = baseline_us(cells, against)
        if subject in cells and base is not None:
            yield cells, base, name, _timed_ok(cells[subject])


def fast_p(records: list[dict], against: str = "sdpa", subject: str = SUBJECT, ps=PS) -> dict:
    """{mode: {"n": shapes with a baseline, "p0": fraction, "p1": ..., "p1.5": ..., "p2": ...}}."""
    out = {}
    for mode in modes_of(records):
        hits, n = dict.fromkeys(ps, 0), 0
        for _, base, _, mine in _against(records, mode, against, subject):
            n += 1
            for p in ps:
                hits[p] += bool(mine and base / mine > p)
        out[mode] = {"n": n, **{f"p{p:g}": (hits[p] / n if n else None) for p in ps}}
    return out


def standing(records: list[dict], subject: str = SUBJECT) -> dict:
    """{mode: {"n", "ahead", "failed", "geomean", "worst"}} against the best peer, the form of
    issue 4's first target (at most the best peer's time on every shape, a geometric-mean
    speedup of 1.05): over the shapes with a correct peer, ``ahead`` counts those where the
    subject's time is at most the best peer's, ``failed`` those where the subject is not
    correct (never ahead, outside the mean), ``worst`` is [shape, speedup, peer] of the lowest."""
    out = {}
    for mode in modes_of(records):
        ratios, failed, worst = [], 0, None
        for cells, base, peer, mine in _against(records, mode, "best", subject):
            if mine is None:
                failed += 1
                continue
            ratios.append(base / mine)
            if worst is None or ratios[-1] < worst[1]:
                worst = [case_label(cells[subject]), ratios[-1], peer]
        out[mode] = {"n": len(ratios) + failed, "ahead": sum(x >= 1 for x in ratios), "failed": failed,
                     "geomean": statistics.geometric_mean(ratios) if ratios else None, "worst": worst}
    return out


def _scopes(records: list[dict]) -> dict[str, list[dict]]:
    scopes = {"all": records}
    for preset in dict.fromkeys(r["preset"] for r in records):
        scopes[preset] = [r for r in records if r["preset"] == preset]
    return scopes


def summary(records: list[dict], subject: str = SUBJECT) -> dict:
    """fast_p vs the SDPA default and vs the best peer, and the standing against the best peer,
    over all shapes and per preset."""
    scopes = _scopes(records)
    return {
        "subject": subject,
        "fast_p": {
            against_name: {scope: fast_p(rs, against, subject) for scope, rs in scopes.items()}
            for against_name, against in (("vs_sdpa", "sdpa"), ("vs_best_peer", "best"))
        },
        "standing_vs_best_peer": {scope: standing(rs, subject) for scope, rs in scopes.items()},
    }


# ----------------------------------------------------------------------------------
# Files
# ----------------------------------------------------------------------------------
def _atomic_write(path: Path, text: str) -> None:
    tmp = path.with_name(path.name + ".tmp")
    tmp.write_text(text)
    os.replace(tmp, path)


def write_json(result: BenchResult, path: Path) -> Path:
    doc = {**result.as_json(), "summary": summary(result.records)}
    _atomic_write(path, json.dumps(doc, indent=1, allow_nan=False, default=str) + "\n")
    return path


def write_csv(records: list[dict], path: Path) -> Path:
    tmp = path.with_name(path.name + ".tmp")
    with tmp.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=RECORD_FIELDS, extrasaction="ignore")
        writer.writeheader()
        writer.writerows(records)
    os.replace(tmp, path)
    return path


def write_data(result: BenchResult, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    return [write_json(result, out_dir / "bench.json"), write_csv(result.records, out_dir / "bench.csv")]


# ----------------------------------------------------------------------------------
# Plots (matplotlib, Agg)
# ----------------------------------------------------------------------------------
def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def _groups(records: list[dict], *fields) -> dict[tuple, list[dict]]:
    grouped = defaultdict(list)
    for r in records:
        grouped[tuple(r[f] for f in fields)].append(r)
    return grouped


def plot_tflops(records: list[dict], out_dir: Path, device_name: str = "") -> list[Path]:
    """TFLOPS vs S: one figure per (preset, dtype, mode) with >= 2 sequence lengths,
    one panel per (D, causal), one line per provider."""
    paths = []
    for (preset, dtype, mode), rs in _groups(records, "preset", "dtype", "mode").items():
        rs = [r for r in rs if r.get("tflops") is not None]
        if len({r["Sq"] for r in rs}) < 2:
            continue
        paths.append(_tflops_figure(rs, out_dir / f"tflops-{preset}-{dtype}-{mode}.png",
                                    f"{preset} · {dtype} · {mode} · {device_name}"))
    return paths


def _tflops_figure(rs: list[dict], path: Path, title: str) -> Path:
    plt = _pyplot()
    panels = sorted(_groups(rs, "D", "causal").items())
    cols = min(len(panels), 4)
    rows = math.ceil(len(panels) / cols)
    fig, axes = plt.subplots(rows, cols, figsize=(4.2 * cols, 3.4 * rows), squeeze=False)
    names = list(dict.fromkeys(r["provider"] for r in rs))
    colors = {p: plt.cm.tab10(i % 10) for i, p in enumerate(names)}  # one colour per provider everywhere
    for ax, ((d, causal), prs) in zip(axes.flat, panels):
        for (provider,), lines in _groups(prs, "provider").items():
            points = sorted({r["Sq"]: r for r in lines}.values(), key=lambda r: r["Sq"])
            ax.plot([r["Sq"] for r in points], [r["tflops"] for r in points], marker="o", label=provider,
                    color=colors[provider])
            bad = [r for r in points if not r["correct"]]
            ax.scatter([r["Sq"] for r in bad], [r["tflops"] for r in bad], marker="x", color="red", zorder=3)
        ax.set_xscale("log", base=2)
        ax.set_title(f"D={d} {'causal' if causal else 'full'}")
        ax.set_xlabel("S (query length)")
        ax.set_ylabel("TFLOPS")
        ax.grid(alpha=0.3)
    for ax in list(axes.flat)[len(panels):]:
        ax.axis("off")
    handles = [plt.Line2D([], [], color=colors[p], marker="o", label=p) for p in names]
    fig.legend(handles=handles, loc="lower center", ncol=min(len(names), 6), fontsize=7)
    fig.suptitle(f"{title} (red x: incorrect)")
    fig.tight_layout(rect=(0, 0.08, 1, 1))
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def plot_speedup(records: list[dict], out_dir: Path, preset: str = "seed", subject: str = SUBJECT,
                 device_name: str = "") -> list[Path]:
    """Bars: the subject's speedup over every other provider, per shape of ``preset``."""
    paths = []
    for (dtype, mode), rs in _groups([r for r in records if r["preset"] == preset], "dtype", "mode").items():
        cases = by_case(rs, mode)
        others = [p for p in dict.fromkeys(r["provider"] for r in rs) if p != subject]
        bars = {p: [_ratio(cells, p, subject) for cells in cases.values()] for p in others}
        bars = {p: v for p, v in bars.items() if any(x is not None for x in v)}
        if not bars:
            continue
        labels = [case_label(next(iter(c.values()))) for c in cases.values()]
        path = out_dir / f"speedup-{preset}-{dtype}-{mode}.png"
        paths.append(_bar_figure(labels, bars, path, f"{subject} speedup · {preset} · {dtype} · {mode} · {device_name}"))
    return paths


def _ratio(cells: dict, other: str, subject: str) -> float | None:
    theirs, mine = _timed_ok(cells.get(other)), _timed_ok(cells.get(subject))
    return theirs / mine if theirs and mine else None


def _bar_figure(labels: list[str], bars: dict[str, list], path: Path, title: str) -> Path:
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(max(6, 1.6 * len(labels) * max(1, len(bars)) / 3), 4))
    width = 0.8 / len(bars)
    for i, (provider, values) in enumerate(bars.items()):
        xs = [j + i * width for j in range(len(labels))]
        ax.bar(xs, [v if v is not None else 0 for v in values], width, label=f"vs {provider}")
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.set_xticks([j + 0.4 - width / 2 for j in range(len(labels))], labels, rotation=15, fontsize=8)
    ax.set_ylabel("speedup (x, >1: flashcore faster)")
    ax.legend(fontsize=7)
    ax.set_title(title, fontsize=9)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def write_plots(result: BenchResult, out_dir: Path) -> list[Path]:
    out_dir.mkdir(parents=True, exist_ok=True)
    name = result.meta.get("device", {}).get("name", "")
    return plot_tflops(result.records, out_dir, name) + plot_speedup(result.records, out_dir, device_name=name)


# ----------------------------------------------------------------------------------
# Terminal
# ----------------------------------------------------------------------------------
def fmt_us(us: float) -> str:
    return f"{us:.2f}" if us < 10 else f"{us:.1f}" if us < 1000 else f"{us:,.0f}"


def fmt_flops(tflops: float | None) -> str:
    if tflops is None:
        return "? TF"
    return f"{tflops:.1f} TF" if tflops >= 1 else f"{tflops * 1000:.3g} GF"


MARKS = {"missing": "[dim]missing[/]", "unsupported": "[dim]n/a[/]", "oom": "[yellow]OOM[/]",
         "error": "[red]error[/]"}


def cell_text(record: dict | None) -> str:
    if record is None:
        return ""
    if record["status"] in MARKS:
        return MARKS[record["status"]]
    mark = "[green]✓[/]" if record["correct"] else "[red]✗[/]"
    pct = record.get("pct_of_ceiling")
    pct_text = f" {pct:.0f}%" if pct is not None and pct >= 1 else (f" {pct:.1g}%" if pct else "")
    return f"{mark} {fmt_us(record['median_us'])} µs\n{fmt_flops(record['tflops'])}{pct_text}"


def fmt_speedup(x: float | None) -> str:
    if x is None:
        return "[dim]-[/]"
    text = f"{x:.2f}×" if x >= 0.1 else f"{x:.2g}×"
    return f"[green]{text}[/]" if x >= 1 else f"[red]{text}[/]"


def case_table(records: list[dict], preset: str, mode: str, providers: list[str]):
    from rich.markup import escape
    from rich.table import Table

    cases = by_case([r for r in records if r["preset"] == preset], mode)
    # A provider that ran nowhere in this table is only a footnote: keeps tables narrow.
    shown = [p for p in providers if any(c.get(p, {}).get("median_us") is not None for c in cases.values())]
    dtype = next((r["dtype"] for r in records if r["preset"] == preset), "")
    table = Table(title=f"{preset} · {dtype} · {mode}", show_lines=True, title_justify="left")
    table.add_column("shape", no_wrap=True)
    for p in shown:
        table.add_column(escape(p), justify="right")  # config providers' names hold [...]
    table.add_column(f"{SUBJECT}\nvs sdpa", justify="right")
    table.add_column(f"{SUBJECT}\nvs best", justify="right")
    for cells in cases.values():
        first = next(iter(cells.values()))
        _, best = baseline_us(cells, "best")
        best_note = f"\n[dim]{best}[/]" if best else ""
        table.add_row(case_label(first), *[cell_text(cells.get(p)) for p in shown],
                      fmt_speedup(speedup(cells, "sdpa")), fmt_speedup(speedup(cells, "best")) + best_note)
    return table


def footnotes(records: list[dict]) -> list[str]:
    """One line per (provider, reason) among cells that did not pass, with a count."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in records:
        if r["status"] != "ok" and r.get("error"):
            counts[(r["provider"], r["error"])] += 1
    return [f"{p} (x{n}): {err}" for (p, err), n in counts.items()]


def notes(records: list[dict]) -> list[str]:
    """What providers said about how they ran (e.g. "auto -> hopper", expanded K/V), with counts."""
    counts: dict[tuple[str, str], int] = defaultdict(int)
    for r in records:
        if r.get("note") and r["mode"] == records[0]["mode"]:
            counts[(r["provider"], r["note"])] += 1
    return [f"{p} (x{n}): {note}" for (p, note), n in counts.items()]


def clock_lines(records: list[dict]) -> list[str]:
    """Per provider and mode: the SM clock (MHz) and board power (W) its cells were timed at,
    median and range over the cells (records without samples left out)."""
    lines = []
    for (provider, mode), rs in _groups(records, "provider", "mode").items():
        mhz = sorted(r["sm_mhz"] for r in rs if r.get("sm_mhz") is not None)
        watts = sorted(r["power_w"] for r in rs if r.get("power_w") is not None)
        if mhz and watts:
            lines.append(f"{provider} ({mode}, {len(mhz)} cells): SM {statistics.median(mhz):.0f} MHz "
                         f"[{mhz[0]:.0f}, {mhz[-1]:.0f}], {statistics.median(watts):.0f} W [{watts[0]:.0f}, {watts[-1]:.0f}]")
    return lines


def fast_p_table(records: list[dict]):
    from rich.table import Table

    table = Table(title=f"fast_p: share of shapes where {SUBJECT} is correct and > p× faster",
                  title_justify="left")
    for col in ("baseline", "mode", "n", *(f"p={p:g}" for p in PS)):
        table.add_column(col, justify="right" if col not in ("baseline", "mode") else "left")
    for name, against in (("SDPA default", "sdpa"), ("best peer", "best")):
        for mode, row in fast_p(records, against).items():
            values = [row[f"p{p:g}"] for p in PS]
            table.add_row(name, mode, str(row["n"]), *("-" if v is None else f"{v:.2f}" for v in values))
    return table


def standing_table(records: list[dict]):
    """The standing per scope and mode (``standing``), or None where no shape has both."""
    from rich.table import Table

    table = Table(title=f"{SUBJECT} against the best peer (the fastest correct one on each shape)",
                  title_justify="left")
    for col in ("scope", "mode", "shapes", "ahead", "failed", "geomean", "worst"):
        table.add_column(col, justify="left" if col in ("scope", "mode", "worst") else "right")
    scopes = _scopes(records)
    if len(scopes) == 2:  # one preset: "all" would repeat it
        del scopes["all"]
    for scope, rs in scopes.items():
        for mode, row in standing(rs).items():
            if row["n"]:
                worst = row["worst"]
                worst_text = f"{worst[0]}: {worst[1]:.3f}× of {worst[2]}" if worst else "-"
                geomean = "-" if row["geomean"] is None else f"{row['geomean']:.3f}×"
                table.add_row(scope, mode, str(row["n"]), str(row["ahead"]), str(row["failed"]), geomean,
                              worst_text)
    return table if table.row_count else None


def print_report(result: BenchResult, console=None) -> None:
    from rich.console import Console

    console = console or Console()
    meta = result.meta
    if meta.get("warning"):
        console.print(f"[bold yellow]{meta['warning']}[/]")
    if result.stopped:
        console.print(f"[bold red]stopped early: {result.stopped}[/]")
    console.print(ceilings_line(meta))
    providers = meta["settings"]["providers"]
    for preset in dict.fromkeys(r["preset"] for r in result.records):
        for mode in modes_of(result.records):
            console.print(case_table(result.records, preset, mode, providers))
    for title, lines in (("not run or not correct:", footnotes(result.records)), ("notes:", notes(result.records)),
                         ("clocks while timed (median [range] over cells):", clock_lines(result.records))):
        if lines:
            console.print(title, style="bold", markup=False, highlight=False)
            for line in lines:
                console.print(f"  {line}", markup=False, highlight=False)
    if result.records:
        console.print(fast_p_table(result.records))
        if (table := standing_table(result.records)) is not None:
            console.print(table)


def ceilings_line(meta: dict) -> str:
    c = meta.get("ceilings") or {}
    mm = ", ".join(f"{k} {v:.1f} TF" if v >= 1 else f"{k} {v * 1000:.3g} GF"
                   for k, v in c.get("matmul_tflops", {}).items())
    dev = meta.get("device", {}).get("name", "?")
    gbps = c.get("copy_gbps")
    copy = f"; copy {gbps:,.0f} GB/s" if gbps else ""
    note = f" ({c['note']})" if c.get("note") else ""
    return f"device {dev}; ceilings (in-run, {c.get('clock', '?')}): matmul {c.get('matmul_n', '?')}³ {mm}{copy}{note}"
