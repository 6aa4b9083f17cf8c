"""The tuned table: ``flashcore/tuned/sm<arch>.json``, data that dispatch reads.

Schema ``flashcore.tuned/1``::

    {"schema": "flashcore.tuned/1", "arch": 90,
     "entries": {"bf16/d128/causal/s8192": {"config": {...}, "fitness": 1.07,
                 "median_us": 812.4, "peer": "sdpa-cudnn", "peer_us": 869.1,
                 "date": "...", "device": "...", "triton": "3.6.0", ...}}}

Keys are :func:`flashcore.dispatch.table_key`; dispatch only reads ``config``. The
rest is the evidence for each entry. A run's proposal may also list ``retired`` keys:
buckets it re-tuned where nothing beat the heuristic, so that an entry tuned against
an older kernel does not outlive the evidence that put it there.

``python -m flashcore.tune.table PROPOSAL [--into PATH]`` merges a run's proposal
(``<out>/tuned-sm<arch>.json``, e.g. fetched from a GPU machine) into the package's table.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from importlib import resources
from pathlib import Path

SCHEMA = "flashcore.tuned/1"


class TableError(ValueError):
    pass


def package_path(arch: int) -> Path:
    """Where dispatch looks for this arch's table (the source tree in an editable install)."""
    return Path(str(resources.files("flashcore.tuned").joinpath(f"sm{arch}.json")))


def empty(arch: int) -> dict:
    return {"schema": SCHEMA, "arch": arch, "entries": {}}


def load(path: str | os.PathLike, arch: int | None = None) -> dict:
    """Read and check a table; a missing file is an empty table."""
    path = Path(path)
    if not path.exists():
        return empty(arch or 0)
    try:
        table = json.loads(path.read_text())
    except json.JSONDecodeError as exc:
        raise TableError(f"{path}: not JSON ({exc}); fix or delete the file") from None
    if table.get("schema") != SCHEMA:
        raise TableError(f"{path}: schema {table.get('schema')!r}, expected {SCHEMA!r}")
    if arch is not None and table.get("arch") != arch:
        raise TableError(f"{path}: table is for arch {table.get('arch')}, expected {arch}")
    for key, entry in table.get("entries", {}).items():
        if not isinstance(entry, dict) or not isinstance(entry.get("config"), dict):
            raise TableError(f"{path}: entry {key!r} has no 'config' object")
    return table


def merge(table: dict, entries: dict, retired=()) -> dict:
    """A new table: ``entries`` replace those with the same key, ``retired`` keys are
    dropped, the rest are kept."""
    retired = set(retired)
    kept = {k: e for k, e in table.get("entries", {}).items() if k not in retired}
    return {**table, "entries": dict(sorted({**kept, **entries}.items()))}


def write(path: str | os.PathLike, table: dict) -> Path:
    """Write atomically (dispatch may read the file at any time)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(path.suffix + ".tmp")
    tmp.write_text(json.dumps(table, indent=1, sort_keys=False) + "\n")
    os.replace(tmp, path)
    return path


def apply(arch: int, entries: dict, path: str | os.PathLike | None = None, retired=()) -> Path:
    """Merge ``entries`` into the arch's table, drop ``retired`` keys, and write it (the
    package's by default)."""
    path = Path(path) if path else package_path(arch)
    return write(path, merge(load(path, arch) if path.exists() else empty(arch), entries, retired))


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m flashcore.tune.table",
                                     description="merge a tune run's proposed table into the package's table")
    parser.add_argument("proposal", help="a run's tuned-sm<arch>.json")
    parser.add_argument("--into", default=None, help="table to update (default: the package's tuned/sm<arch>.json)")
    args = parser.parse_args(argv)
    try:
        if not Path(args.proposal).exists():
            raise TableError(f"{args.proposal}: no such file; pass a run's tuned-sm<arch>.json")
        proposal = load(args.proposal)
        retired = proposal.get("retired", [])
        path = apply(proposal["arch"], proposal["entries"], args.into, retired)
    except TableError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"{len(proposal['entries'])} entries merged into {path}, {len(retired)} retired")
    return 0


if __name__ == "__main__":
    sys.exit(main())
