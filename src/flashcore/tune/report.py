"""What a tuning run reports: the summary (EvoEngineer's metrics), its table, the plot.

Metrics, per bucket and overall:

- validity rate: valid candidates / evaluated candidates (pruned points are not
  candidates: they never reach the evaluator, and are counted apart);
- best fitness: best-peer time / best candidate time (> 1: faster than the peer);
- gain over the heuristic: heuristic time / best time (the heuristic config is
  evaluated in generation 0 of every bucket, so this is measured in the same run).
"""

from __future__ import annotations

import math
from pathlib import Path

from .search import Outcome


def geomean(xs: list[float]) -> float | None:
    xs = [x for x in xs if x and x > 0]
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def bucket_summary(key: str, outcome: Outcome | None, peer: dict | None, error: str = "") -> dict:
    if outcome is None:
        return {"bucket": key, "error": error or "not run", "evaluated": 0, "valid": 0}
    best, heur = outcome.best, outcome.heuristic
    evaluated, valid = len(outcome.results), len(outcome.valid)
    gain = None
    if best and heur and heur.valid and heur.median_us:
        gain = heur.median_us / best.median_us
    return {
        "bucket": key, "evaluated": evaluated, "valid": valid,
        "validity_rate": valid / evaluated if evaluated else None,
        "pruned": len(outcome.pruned), "pruned_by_reason": outcome.pruned_by_reason(),
        "best_fitness": best.fitness if best else None, "best_us": best.median_us if best else None,
        "best_config": best.params if best else None,
        "heuristic_config": heur.params if heur else None,
        "heuristic_valid": heur.valid if heur else None,
        "heuristic_reason": heur.reason if heur and not heur.valid else "",
        "heuristic_fitness": heur.fitness if heur else None,
        "heuristic_us": heur.median_us if heur else None,
        "gain_vs_heuristic": gain, "stop": outcome.stop,
        "generations": len(outcome.best_by_generation), "best_by_generation": outcome.best_by_generation,
        "invalid_by_stage": _count(r.stage for r in outcome.results if not r.valid),
        "peer": (peer or {}).get("name"), "peer_us": (peer or {}).get("us"),
    }


def _count(items) -> dict:
    counts: dict = {}
    for item in items:
        counts[item] = counts.get(item, 0) + 1
    return counts


def run_summary(buckets: list[dict], binaries: dict | None = None) -> dict:
    evaluated = sum(b["evaluated"] for b in buckets)
    valid = sum(b["valid"] for b in buckets)
    return {
        "buckets": len(buckets),
        "tuned": sum(1 for b in buckets if b.get("best_fitness")),
        "evaluated": evaluated, "valid": valid,
        "validity_rate": valid / evaluated if evaluated else None,
        "geomean_best_fitness": geomean([b.get("best_fitness") for b in buckets]),
        "geomean_gain_vs_heuristic": geomean([b.get("gain_vs_heuristic") for b in buckets]),
        "heuristic_invalid": [b["bucket"] for b in buckets if b.get("heuristic_valid") is False],
        "binaries": binaries or {},
        "per_bucket": buckets,
    }


def binary_stats(outcomes: list[Outcome]) -> dict:
    """Isolation evidence: distinct compiled binaries vs distinct configs that compiled."""
    pairs = set()
    for outcome in outcomes:
        for r in outcome.results:
            for case in r.info.get("cases", []):
                h = (case.get("binary") or {}).get("hash")
                if h:
                    pairs.add((h, r.key))
    hashes = {h for h, _ in pairs}
    shared = len(pairs) - len(hashes)
    return {"hashes": len(hashes), "config_binary_pairs": len(pairs), "hashes_shared_by_configs": shared}


def _fmt(x, spec: str) -> str:
    return "-" if x is None else format(x, spec)


def config_label(params: dict | None) -> str:
    """Compact: initials of each name and the value, e.g. "bm128 bn64 nw8 ns3 ws0"."""
    if not params:
        return "-"
    short = lambda k: "".join(w[0] for w in k.split("_") if w)  # noqa: E731
    return " ".join(f"{short(k)}{int(v) if isinstance(v, bool) else v}" for k, v in params.items())


def print_summary(console, summary: dict) -> None:
    from rich.table import Table

    table = Table(title="flashcore tune", show_lines=False)
    for col in ("bucket", "cand", "valid %", "pruned", "best fit", "heur fit", "gain", "best config", "stop"):
        table.add_column(col, justify="left" if col in ("bucket", "best config", "stop") else "right")
    for b in summary["per_bucket"]:
        if b.get("error"):
            error = b["error"] if len(b["error"]) <= 70 else b["error"][:67] + "..."  # all of it: summary.json
            table.add_row(b["bucket"], "0", "-", "-", "-", "-", "-", f"[red]{error}", "skipped")
            continue
        rate = b["validity_rate"]
        table.add_row(
            b["bucket"], str(b["evaluated"]), _fmt(rate * 100 if rate is not None else None, ".0f"),
            str(b["pruned"]), _fmt(b["best_fitness"], ".3f"), _fmt(b["heuristic_fitness"], ".3f"),
            _fmt(b["gain_vs_heuristic"], ".3f"), config_label(b["best_config"]), b["stop"],
        )
    console.print(table)
    rate = summary["validity_rate"]
    console.print(
        f"validity {_fmt(rate * 100 if rate is not None else None, '.0f')}% "
        f"({summary['valid']}/{summary['evaluated']}), buckets tuned {summary['tuned']}/{summary['buckets']}, "
        f"geomean best fitness {_fmt(summary['geomean_best_fitness'], '.3f')}, "
        f"geomean gain vs heuristic {_fmt(summary['geomean_gain_vs_heuristic'], '.3f')}"
    )
    if summary["heuristic_invalid"]:
        console.print(f"[red]heuristic config INVALID in: {', '.join(summary['heuristic_invalid'])}")


def plot(summary: dict, path: str | Path) -> Path | None:
    """Best fitness so far per generation, one line per bucket (matplotlib Agg)."""
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    import matplotlib.ticker  # noqa: F401 - used through matplotlib.ticker

    rows = [b for b in summary["per_bucket"] if any(x is not None for x in b.get("best_by_generation") or [])]
    fig, ax = plt.subplots(figsize=(9, 5.5))
    for b in rows:
        ys = b["best_by_generation"]
        ax.plot(range(len(ys)), [y if y is not None else float("nan") for y in ys], marker="o", ms=3,
                label=b["bucket"])
    ax.axhline(1.0, color="grey", lw=0.8, ls="--")
    ax.xaxis.set_major_locator(matplotlib.ticker.MaxNLocator(integer=True))
    ax.set_xlabel("generation")
    ax.set_ylabel("best fitness (peer time / candidate time)")
    ax.set_title("flashcore tune: best fitness per generation")
    if rows:
        ax.legend(fontsize=6, ncol=2, loc="center left", bbox_to_anchor=(1.0, 0.5))
    fig.tight_layout()
    path = Path(path)
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path
