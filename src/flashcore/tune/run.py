"""One tuning run: group cases into buckets, time the peer, search each bucket.

Everything that touches a GPU happens in the worker subprocess; this process only
decides, logs and reports. The log (JSONL) is the run's memory: ``--resume LOG``
reads it back, reuses each bucket's peer time (fitness stays comparable) and its
candidates (never evaluated again), and appends to it.
"""

from __future__ import annotations

import datetime as _dt
import json
import os
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import report, table
from .search import Outcome, Result, Settings, search
from .space import DEFAULT_FAMILY, KernelFamily, load_family
from .worker import WorkerClient, WorkerError, WorkerEvaluator, case_from_json, case_to_json

LOG_SCHEMA = "flashcore.tune-log/1"
GPU_PEERS = ("sdpa-cudnn", "sdpa-flash", "fa4")
CPU_PEERS = ("flashcore-reference",)


class TuneError(RuntimeError):
    """A run cannot start or continue; the message says what to change."""


@dataclass
class Options:
    cases: list = field(default_factory=list)
    settings: Settings = field(default_factory=Settings)
    family: str = DEFAULT_FAMILY
    peers: list[str] | None = None  # None: the device's default list
    time_s: float | None = None  # the whole run, shared fairly among buckets
    out_dir: str = "out/tune"
    resume: str | None = None
    apply: bool = False
    table_path: str | None = None  # --apply target; default: the package's tuned/sm<arch>.json
    timeout_s: float = 120.0
    gate_sets: int = 3
    warmup_ms: float = 25.0
    rep_ms: float = 100.0
    offline_arch: int | None = None
    warm_start: bool = True
    quiet: bool = False
    worker_env: dict = field(default_factory=dict)


@dataclass
class Bucket:
    key: str
    cases: list
    peer: dict | None = None  # {"name", "us" (geomean), "per_case": [{"best", "best_us", "times"}]}
    outcome: Outcome | None = None
    error: str = ""

    @property
    def family_key(self) -> str:
        return self.key.rsplit("/", 1)[0]  # dtype/D/causal: neighbours share good configs


def group_buckets(cases: list) -> list[Bucket]:
    """One bucket per tuned-table key, in (dtype, D, causal, size) order."""
    from ..dispatch import table_key

    buckets: dict[str, Bucket] = {}
    for case in cases:
        key = table_key(case.dtype, case.head_dim, case.causal, case.seq_q, case.sk)
        buckets.setdefault(key, Bucket(key, []))
        if case not in buckets[key].cases:
            buckets[key].cases.append(case)

    def order(b: Bucket):
        dtype, d, mask, s = b.key.split("/")
        return dtype, int(d[1:]), mask, int(s[1:])

    return sorted(buckets.values(), key=order)


# ----------------------------------------------------------------------------------
# The log
# ----------------------------------------------------------------------------------
class RunLog:
    """Append-only JSONL; each line has a ``type``: run, peer, candidate, bucket_end."""

    def __init__(self, path: Path):
        self.path = path
        path.parent.mkdir(parents=True, exist_ok=True)
        self._f = open(path, "a")

    def write(self, kind: str, **fields) -> None:
        self._f.write(json.dumps({"type": kind, **fields}, default=str) + "\n")
        self._f.flush()

    def close(self) -> None:
        self._f.close()

    @staticmethod
    def read(path: str | Path) -> list[dict]:
        path = Path(path)
        if not path.exists():
            raise TuneError(f"--resume {path}: no such log; pass the tune-log.jsonl of an earlier run")
        lines = []
        for n, text in enumerate(path.read_text().splitlines(), 1):
            if not text.strip():
                continue
            try:
                lines.append(json.loads(text))
            except json.JSONDecodeError:
                # A run killed mid-write leaves a partial last line: skip it, keep the rest.
                if n != len(path.read_text().splitlines()):
                    raise TuneError(f"--resume {path}: line {n} is not JSON; the log is damaged") from None
        if not lines or lines[0].get("schema") != LOG_SCHEMA:
            raise TuneError(f"--resume {path}: not a flashcore tune log (expected schema {LOG_SCHEMA})")
        return lines


def cases_from_log(lines: list[dict]) -> list:
    return [case_from_json(c) for c in lines[0].get("cases", [])]


# ----------------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------------
class Tuner:
    def __init__(self, opts: Options, console=None):
        from rich.console import Console

        self.opts = opts
        self.console = console or Console()
        self.out = Path(opts.out_dir)
        self.family: KernelFamily = load_family(opts.family)
        self.history = RunLog.read(opts.resume) if opts.resume else []
        if not opts.cases and self.history:
            opts.cases = cases_from_log(self.history)
        if not opts.cases:
            raise TuneError("no cases: pass --preset NAME or --shape B,Hq,S,D (or --resume a log)")
        if opts.apply and opts.family != DEFAULT_FAMILY:
            raise TuneError(f"--apply writes the table dispatch reads for {DEFAULT_FAMILY}; "
                            f"--family {opts.family} cannot be applied (drop --apply)")
        self.log_path = Path(opts.resume) if opts.resume else self.out / "tune-log.jsonl"
        if not opts.resume and self.log_path.exists():
            raise TuneError(f"{self.log_path} exists; pass --resume {self.log_path} to continue it, "
                            f"or another --out DIR")
        self.buckets = group_buckets(opts.cases)
        self.client = WorkerClient(env=opts.worker_env, log_dir=str(self.out / "workers"))

    def run(self) -> dict:
        t0 = time.monotonic()
        self.out.mkdir(parents=True, exist_ok=True)
        try:
            self.info = self.client.ensure()
        except WorkerError as exc:
            raise TuneError(f"the tune worker did not start: {exc}") from None
        self._check_resume_device()
        self.log = RunLog(self.log_path)
        self._log_run()
        try:
            self._tune_buckets(t0)
        finally:
            self.client.close()
            self.log.close()
        return self._finish()

    # -- setup -----------------------------------------------------------------------
    def _check_resume_device(self) -> None:
        runs = [line for line in self.history if line.get("type") == "run"]
        if runs and (runs[0].get("arch"), runs[0].get("device")) != (self.info["arch"], self.info["device"]):
            raise TuneError(f"--resume: the log was measured on {runs[0].get('device')} (sm_{runs[0].get('arch')}), "
                            f"this worker runs on {self.info['device']} (sm_{self.info['arch']}); fitness "
                            f"would mix devices. Start a new run with another --out DIR")

    def _log_run(self) -> None:
        o = self.opts
        self.log.write(
            "run", schema=LOG_SCHEMA, resumed=bool(o.resume), date=_now(), family=o.family,
            device=self.info["device"], arch=self.info["arch"], triton=self.info["triton"],
            torch=self.info["torch"], interpret=self.info["interpret"], settings=asdict(o.settings),
            peers=self.peer_names(), time_s=o.time_s, timeout_s=o.timeout_s, gate_sets=o.gate_sets,
            warmup_ms=o.warmup_ms, rep_ms=o.rep_ms, cases=[case_to_json(c) for c in o.cases],
        )

    def peer_names(self) -> list[str]:
        if self.opts.peers:
            return list(self.opts.peers)
        return list(GPU_PEERS if self.info.get("cuda") else CPU_PEERS)

    # -- buckets -----------------------------------------------------------------------
    def _tune_buckets(self, t0: float) -> None:
        cap = self.opts.settings.budget
        if cap is None:
            cap = self.opts.settings.population * self.opts.settings.generations
        with self._progress(cap * len(self.buckets)) as progress:
            task = progress.add_task("starting", total=cap * len(self.buckets))
            for i, bucket in enumerate(self.buckets):
                deadline = self._deadline(t0, len(self.buckets) - i)
                self._tune_bucket(bucket, deadline, progress, task)
                progress.update(task, completed=cap * (i + 1))

    def _progress(self, total: int):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=self.console, disable=self.opts.quiet)

    def _deadline(self, t0: float, buckets_left: int) -> float | None:
        if self.opts.time_s is None:
            return None
        now = time.monotonic()
        return now + max(0.0, t0 + self.opts.time_s - now) / buckets_left

    def _tune_bucket(self, bucket: Bucket, deadline, progress, task) -> None:
        progress.update(task, description=f"{bucket.key}: timing the peer")
        bucket.peer = self._peer(bucket)
        if bucket.peer.get("error"):
            bucket.error = bucket.peer["error"]
            self._say(f"[red]{bucket.key}: skipped: {bucket.error}")
            return
        arch = self.info["arch"]
        rep = bucket.cases[0]
        evaluator = WorkerEvaluator(
            self.client, self.opts.family, bucket.cases, bucket.peer["per_case_us"], arch=arch,
            timeout_s=self.opts.timeout_s, seed=self.opts.settings.seed, offline_arch=self.opts.offline_arch,
            gate={"sets": self.opts.gate_sets, "seed": self.opts.settings.seed + 1},
            timing={"mode": "auto", "warmup_ms": self.opts.warmup_ms, "rep_ms": self.opts.rep_ms},
        )

        def on_result(result: Result, outcome: Outcome) -> None:
            self.log.write("candidate", bucket=bucket.key, **result.to_json())
            best = outcome.best
            progress.update(task, advance=1, description=(
                f"{bucket.key} gen {result.generation} best {best.fitness:.3f}" if best
                else f"{bucket.key} gen {result.generation} (no valid yet)"))

        bucket.outcome = search(
            self.family.space, evaluator, self.opts.settings, bucket=bucket.key,
            heuristic=self.family.heuristic(rep, arch), check=lambda p: self.family.check(p, rep, arch),
            seeds=self._seeds(bucket), history=self._history(bucket.key), deadline=deadline,
            on_result=on_result,
        )
        self.log.write("bucket_end", bucket=bucket.key, stop=bucket.outcome.stop, pruned=bucket.outcome.pruned)
        self._say_bucket(bucket)

    def _history(self, key: str) -> list[Result]:
        return [Result.from_json(line) for line in self.history
                if line.get("type") == "candidate" and line.get("bucket") == key]

    def _seeds(self, bucket: Bucket) -> list[dict]:
        """Warm start: the two best configs of the last tuned bucket with the same dtype/D/mask."""
        if not self.opts.warm_start:
            return []
        done = [b for b in self.buckets if b.outcome and b.family_key == bucket.family_key]
        return [r.params for r in done[-1].outcome.elites(2)] if done else []

    # -- the peer ------------------------------------------------------------------------
    def _peer(self, bucket: Bucket) -> dict:
        cases = [case_to_json(c) for c in bucket.cases]
        for line in reversed(self.history):
            if line.get("type") == "peer" and line.get("bucket") == bucket.key and line.get("cases") == cases:
                return line["peer"]
        peer = self._time_peer(bucket)
        self.log.write("peer", bucket=bucket.key, cases=cases, peer=peer)
        return peer

    def _time_peer(self, bucket: Bucket) -> dict:
        names = self.peer_names()
        per_case = []
        for case in bucket.cases:
            msg = {"op": "peer", "case": case_to_json(case), "names": names, "seed": self.opts.settings.seed,
                   "timing": {"mode": "auto", "warmup_ms": self.opts.warmup_ms, "rep_ms": self.opts.rep_ms}}
            try:
                times = self.client.call(msg, self.opts.timeout_s * len(names) + 60)["peers"]
            except (WorkerError, KeyError) as exc:
                return {"error": f"timing the peers failed: {exc}"}
            ok = {n: t["median_us"] for n, t in times.items() if "median_us" in t}
            if not ok:
                why = "; ".join(f"{n}: {t.get('error')}" for n, t in times.items())
                return {"error": f"no peer ran {case.label()} ({why}); pass --peer NAME[,NAME] with one that does"}
            best = min(ok, key=ok.get)
            per_case.append({"best": best, "best_us": ok[best], "times": times})
        us = [p["best_us"] for p in per_case]
        names_used = sorted({p["best"] for p in per_case})
        return {"name": ",".join(names_used), "us": report._geomean(us), "per_case_us": us, "per_case": per_case}

    # -- output ----------------------------------------------------------------------------
    def _say(self, text: str) -> None:
        if not self.opts.quiet:
            self.console.print(text)

    def _say_bucket(self, bucket: Bucket) -> None:
        o = bucket.outcome
        best = o.best
        what = f"best {best.fitness:.3f}x vs {bucket.peer['name']} ({report.config_label(best.params)})" \
            if best else "no valid candidate"
        self._say(f"{bucket.key}: {what}; {len(o.results)} candidates, {len(o.valid)} valid, stop: {o.stop}")

    def _finish(self) -> dict:
        rows = [report.bucket_summary(b.key, b.outcome, b.peer, b.error) for b in self.buckets]
        summary = report.run_summary(rows, report.binary_stats([b.outcome for b in self.buckets if b.outcome]))
        summary.update(device=self.info["device"], arch=self.info["arch"], log=str(self.log_path),
                       worker_starts=self.client.starts)
        entries = self.entries()
        files = {"log": str(self.log_path)}
        files["summary"] = str(_write_json(self.out / "summary.json", summary))
        files["plot"] = str(report.plot(summary, self.out / "fitness.png"))
        proposal = table.merge(table.empty(self.info["arch"]), entries)
        files["proposal"] = str(_write_json(self.out / f"tuned-sm{self.info['arch']}.json", proposal))
        if self.opts.apply and entries:
            files["applied"] = str(table.apply(self.info["arch"], entries, self.opts.table_path))
        summary["files"] = files
        if not self.opts.quiet:
            report.print_summary(self.console, summary)
            for name, path in files.items():
                self.console.print(f"{name:<9} {path}")
            if not self.opts.apply:
                self.console.print("(report only: pass --apply to write the tuned table)")
        return summary

    def entries(self) -> dict:
        """Tuned-table entries: the best valid config of each bucket, with its evidence."""
        entries = {}
        for b in self.buckets:
            best = b.outcome.best if b.outcome else None
            if best is None:
                continue
            heur = b.outcome.heuristic
            entries[b.key] = {
                "config": best.params, "fitness": round(best.fitness, 4), "median_us": round(best.median_us, 3),
                "peer": b.peer["name"], "peer_us": round(b.peer["us"], 3),
                "heuristic_us": round(heur.median_us, 3) if heur and heur.valid else None,
                "date": _now(), "device": self.info["device"], "triton": self.info["triton"],
                "torch": self.info["torch"], "family": self.opts.family,
                "cases": [c.label() for c in b.cases], "candidates": len(b.outcome.results),
            }
        return entries


def _now() -> str:
    return _dt.datetime.now(_dt.timezone.utc).isoformat(timespec="seconds")


def _write_json(path: Path, obj) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    tmp = path.with_suffix(".tmp")
    tmp.write_text(json.dumps(obj, indent=1, default=str) + "\n")
    os.replace(tmp, path)
    return path


def tune(opts: Options, console=None) -> dict:
    """Run a tuning session; returns the summary (also written to ``out/summary.json``)."""
    return Tuner(opts, console).run()
