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
import statistics
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

from . import report, table
from .search import Outcome, Result, Settings, search
from .space import KernelFamily, load_family
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
    families: list[str] = field(default_factory=lambda: ["auto"])  # "auto": what dispatch runs
    peers: list[str] | None = None  # None: the device's default list
    time_s: float | None = None  # the whole run, shared fairly among buckets
    out_dir: str = "out/tune"
    resume: str | None = None
    apply: bool = False
    table_path: str | None = None  # --apply target; default: the package's tuned/sm<arch>.json
    # An entry must beat the heuristic by this factor: identical configs timed twice on
    # the H100 differ by up to ~3%, and a table entry that only chases that noise can
    # lose to the heuristic in the next run (benchmarks/results/2026-11-22-h100-gluon/).
    min_gain: float = 1.03
    # Before an entry is proposed, the best config and the heuristic are timed again in
    # this many alternating rounds per case (worker ``compare``); their paired gain, not the
    # search's, must reach min_gain. 0: trust the search's times.
    confirm_rounds: int = 8
    # Each config's turn in a confirming round: half warm-up, half timed. Under sustained load
    # the H100 sits at its power limit and a config's clock follows its own power, which
    # turns of ~100 ms only partly show (kernel log v48: 0.97x in 30 ms turns, 1.05x alone).
    confirm_ms: float = 800.0
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
    """One tuned-table key: a family and the cases that fall into its size bucket."""

    key: str  # the family's table key, e.g. "hopper:bf16/d128/causal/s8192"
    cases: list
    family: KernelFamily | None = None
    peer: dict | None = None  # {"name", "us" (geomean), "per_case_us", "per_case"}
    outcome: Outcome | None = None
    confirm: dict | None = None  # the paired re-timing of best against heuristic, if run
    error: str = ""

    @property
    def neighbours_key(self) -> str:
        return self.key.rsplit("/", 1)[0]  # family/dtype/D/mask: good configs carry over sizes


def group_cases(cases: list) -> list[tuple[str, list]]:
    """Cases grouped by size bucket, in (dtype, D, mask, size) order: (base key, cases)."""
    from ..dispatch import table_key

    groups: dict[str, list] = {}
    for case in cases:
        key = table_key(case.dtype, case.head_dim, case.causal, case.seq_q, case.sk,
                        batch_heads=case.batch * case.heads_q)
        group = groups.setdefault(key, [])
        if case not in group:
            group.append(case)

    def order(key: str):
        dtype, d, mask, size = key.split("/")
        return dtype, int(d[1:]), mask, int(size[1:].removesuffix("w1")), size

    return [(key, groups[key]) for key in sorted(groups, key=order)]


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
        self.console = console or Console(width=None if Console().is_terminal else 160)
        self.out = Path(opts.out_dir)
        if "auto" in opts.families and len(opts.families) > 1:
            raise TuneError(f"--family: 'auto' (what dispatch runs) or family names, not both; got {opts.families}")
        self.named = {n: load_family(n) for n in opts.families if n != "auto"}  # empty: auto
        self.loaded = dict(self.named)
        self.history = RunLog.read(opts.resume) if opts.resume else []
        if not opts.cases and self.history:
            opts.cases = cases_from_log(self.history)
        if not opts.cases:
            raise TuneError("no cases: pass --preset NAME or --shape B,Hq,S,D (or --resume a log)")
        foreign = [f.name for f in self.named.values() if f.short is None]
        if opts.apply and foreign:
            raise TuneError(f"--apply writes tables that dispatch reads, and dispatch does not run "
                            f"{', '.join(foreign)}; drop --apply (the proposal is still written)")
        self.log_path = Path(opts.resume) if opts.resume else self.out / "tune-log.jsonl"
        if not opts.resume and self.log_path.exists():
            raise TuneError(f"{self.log_path} exists; pass --resume {self.log_path} to continue it, "
                            f"or another --out DIR")
        self.groups = group_cases(opts.cases)
        self.buckets: list[Bucket] = []
        self.peers: dict[str, dict] = {}  # base key -> peer timing, shared by families
        self.client = WorkerClient(env=opts.worker_env, log_dir=str(self.out))

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
            "run", schema=LOG_SCHEMA, resumed=bool(o.resume), date=_now(), families=o.families,
            device=self.info["device"], arch=self.info["arch"], triton=self.info["triton"],
            torch=self.info["torch"], interpret=self.info["interpret"], settings=asdict(o.settings),
            peers=self.peer_names(), time_s=o.time_s, timeout_s=o.timeout_s, gate_sets=o.gate_sets,
            warmup_ms=o.warmup_ms, rep_ms=o.rep_ms, confirm_rounds=o.confirm_rounds, confirm_ms=o.confirm_ms,
            cases=[case_to_json(c) for c in o.cases],
        )

    def search_arch(self) -> int:
        """The arch that constraints assume: the GPU's, or on CPU the --offline-arch target."""
        if not self.info.get("cuda") and self.opts.offline_arch:
            return self.opts.offline_arch
        return self.info["arch"]

    def peer_names(self) -> list[str]:
        if self.opts.peers:
            return list(self.opts.peers)
        return list(GPU_PEERS if self.info.get("cuda") else CPU_PEERS)

    # -- buckets -----------------------------------------------------------------------
    def _tune_buckets(self, t0: float) -> None:
        cap = self.opts.settings.budget
        if cap is None:
            cap = self.opts.settings.population * self.opts.settings.generations
        per_group = max(1, len(self.named))
        total = cap * per_group * len(self.groups)
        with self._progress() as progress:
            task = progress.add_task("starting", total=total)
            for i, (base, cases) in enumerate(self.groups):
                if self.opts.time_s is not None and time.monotonic() >= t0 + self.opts.time_s:
                    # Out of time: not even the peer or the plan for the rest.
                    self.buckets.append(Bucket(base, cases, error=f"--time {self.opts.time_s:g} s used up"))
                    continue
                for j, bucket in enumerate(self._plan(base, cases)):
                    left = (len(self.groups) - i) * per_group - j
                    if not bucket.error:
                        self._tune_bucket(bucket, self._deadline(t0, left), progress, task)
                    self.buckets.append(bucket)
                progress.update(task, completed=cap * per_group * (i + 1))

    def _plan(self, base: str, cases: list) -> list[Bucket]:
        """The buckets of one size group: the family dispatch runs there, or each named one."""
        msg = {"op": "plan", "cases": [case_to_json(c) for c in cases], "families": list(self.named),
               "arch": self.search_arch(), "seed": self.opts.settings.seed}
        try:
            plan = self.client.call(msg, self.opts.timeout_s + 60)
        except WorkerError as exc:
            return [Bucket(base, cases, error=f"planning failed: {exc}")]
        if not self.named:  # auto: each case goes to the family dispatch picks for it
            return [self._bucket(name, [c for c, d in zip(cases, plan["dispatch"]) if d == name], [])
                    for name in sorted(set(plan["dispatch"]))]
        return [self._bucket(name, cases, plan["supports"].get(name, [])) for name in self.named]

    def _bucket(self, name: str, cases: list, unsupported: list) -> Bucket:
        family = self.loaded.get(name) or self.loaded.setdefault(name, load_family(name))
        bucket = Bucket(family.table_key(cases[0]), cases, family)
        why = [r for r in unsupported if r]
        if why:
            bucket.error = f"{family.short or family.name} cannot run it: {why[0]}"
            self._say(f"[yellow]{bucket.key}: skipped: {bucket.error}")
        return bucket

    def _progress(self):
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        return Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                        TimeElapsedColumn(), console=self.console, disable=self.opts.quiet)

    def _deadline(self, t0: float, buckets_left: int) -> float | None:
        if self.opts.time_s is None:
            return None
        now = time.monotonic()
        return now + max(0.0, t0 + self.opts.time_s - now) / max(1, buckets_left)

    def _tune_bucket(self, bucket: Bucket, deadline, progress, task) -> None:
        progress.update(task, description=f"{bucket.key}: timing the peer")
        bucket.peer = self._peer(bucket)
        if bucket.peer.get("error"):
            bucket.error = bucket.peer["error"]
            self._say(f"[red]{bucket.key}: skipped: {bucket.error}")
            return
        arch, family = self.search_arch(), bucket.family
        rep = bucket.cases[0]
        evaluator = WorkerEvaluator(
            self.client, family.name, bucket.cases, bucket.peer["per_case_us"], arch=arch,
            timeout_s=self.opts.timeout_s, seed=self.opts.settings.seed,
            offline_arch=None if self.info.get("cuda") else self.opts.offline_arch,
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
            family.space, evaluator, self.opts.settings, bucket=bucket.key,
            heuristic=family.heuristic(rep, arch), check=lambda p: family.check(p, rep, arch),
            seeds=self._seeds(bucket, arch), history=self._history(bucket.key), deadline=deadline,
            on_result=on_result,
        )
        self.log.write("bucket_end", bucket=bucket.key, stop=bucket.outcome.stop, pruned=bucket.outcome.pruned)
        progress.update(task, description=f"{bucket.key}: confirming the best against the heuristic")
        bucket.confirm = self._confirm(bucket)
        if bucket.confirm:
            self.log.write("confirm", bucket=bucket.key, **bucket.confirm)
        self._say_bucket(bucket)

    def _confirm(self, bucket: Bucket) -> dict | None:
        """The best config's gain over the heuristic, from alternating rounds (worker
        ``compare``): per case the median of the per-round ratios, then their geomean."""
        o = bucket.outcome
        best, heur = o.best, o.heuristic
        if self.opts.confirm_rounds < 1 or best is None or heur is None or not heur.valid \
                or best.params == heur.params:
            return None
        # Long turns, each config alone: 10 ms rounds run at burst clocks and ranked two D=64
        # causal configs the other way round from 300 ms rounds and the bench
        # (benchmarks/results/2026-11-22-h100-d64-causal/); 30 ms ones hid a config's lower
        # power (2026-11-27-h100-power/). The first half lets the clock settle.
        half = self.opts.confirm_ms / 2
        timing = {"mode": "auto", "warmup_ms": half, "rep_ms": half}
        per_case = []
        for case in bucket.cases:
            msg = {"op": "compare", "family": bucket.family.name, "case": case_to_json(case),
                   "params": [heur.params, best.params], "rounds": self.opts.confirm_rounds,
                   "seed": self.opts.settings.seed, "timing": timing}
            try:
                reply = self.client.call(msg, self.opts.timeout_s * 2 * self.opts.confirm_rounds + 60)
            except WorkerError as exc:
                return {"error": f"confirming failed: {exc}", "gain": None}
            if not reply.get("ok"):
                self.client.restart()
                return {"error": f"confirming failed: {reply.get('error', '?')}", "gain": None}
            heur_us, best_us = reply["rounds_us"]
            per_case.append({"ratio": statistics.median(h / b for h, b in zip(heur_us, best_us)),
                             "heuristic_us": statistics.median(heur_us), "best_us": statistics.median(best_us)})
        return {"gain": report.geomean([c["ratio"] for c in per_case]), "rounds": self.opts.confirm_rounds,
                "turn_ms": self.opts.confirm_ms,
                "per_case": per_case}

    def _history(self, key: str) -> list[Result]:
        return [Result.from_json(line) for line in self.history
                if line.get("type") == "candidate" and line.get("bucket") == key]

    def _seeds(self, bucket: Bucket, arch: int) -> list[dict]:
        """The heuristics of the bucket's other cases (dispatch picks per B*H), and as a warm
        start the two best configs of the last tuned bucket with the same family/dtype/D/mask."""
        seeds = [bucket.family.heuristic(c, arch) for c in bucket.cases[1:]]
        if self.opts.warm_start:
            done = [b for b in self.buckets if b.outcome and b.neighbours_key == bucket.neighbours_key]
            seeds += [r.params for r in done[-1].outcome.elites(2)] if done else []
        return seeds

    # -- the peer ------------------------------------------------------------------------
    def _peer(self, bucket: Bucket) -> dict:
        """Timed once per size group in a run (families share it); a resumed run reuses the log's."""
        cases = [case_to_json(c) for c in bucket.cases]
        base = _base_key(bucket.key)
        if base in self.peers:
            return self.peers[base]
        for line in reversed(self.history):
            if line.get("type") == "peer" and line.get("group") == base and line.get("cases") == cases:
                self.peers[base] = line["peer"]
                return line["peer"]
        peer = self.peers[base] = self._time_peer(bucket)
        self.log.write("peer", group=base, cases=cases, peer=peer)
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
        return {"name": ",".join(names_used), "us": report.geomean(us), "per_case_us": us, "per_case": per_case}

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
        rows = [{**report.bucket_summary(b.key, b.outcome, b.peer, b.error), "confirm": b.confirm}
                for b in self.buckets]
        summary = report.run_summary(rows, report.binary_stats([b.outcome for b in self.buckets if b.outcome]))
        summary.update(device=self.info["device"], arch=self.info["arch"], log=str(self.log_path),
                       worker_starts=self.client.starts)
        entries, retired = self.entries(), self.retired()
        files = {"log": str(self.log_path)}
        files["summary"] = str(_write_json(self.out / "summary.json", summary))
        files["plot"] = str(report.plot(summary, self.out / "fitness.png"))
        proposal = {**table.merge(table.empty(self.info["arch"]), entries), "retired": retired}
        files["proposal"] = str(_write_json(self.out / f"tuned-sm{self.info['arch']}.json", proposal))
        if self.opts.apply and (entries or retired):
            files["applied"] = str(table.apply(self.info["arch"], entries, self.opts.table_path, retired))
        summary["files"] = files
        if not self.opts.quiet:
            report.print_summary(self.console, summary)
            for name, path in files.items():
                self.console.print(f"{name:<9} {path}")
            if not self.opts.apply:
                self.console.print("(report only: pass --apply to write the tuned table)")
        return summary

    def _heuristic_holds(self, b) -> bool:
        """Valid, and the best config does not beat it by ``min_gain``: by the paired
        re-timing when there is one (``_confirm``), else by the search's own times."""
        heur = b.outcome.heuristic
        if not (heur and heur.valid):
            return False
        if b.confirm and b.confirm.get("gain") is not None:
            return b.confirm["gain"] < self.opts.min_gain
        return heur.median_us < b.outcome.best.median_us * self.opts.min_gain

    def retired(self) -> list:
        """Keys of buckets searched here where the heuristic held (valid, and no config
        beat it by ``min_gain``): an entry the table has for them is stale."""
        return sorted(b.key for b in self.buckets if b.outcome and b.outcome.best is not None
                      and b.family.short is not None and self._heuristic_holds(b))

    def entries(self) -> dict:
        """Tuned-table entries: the best valid config of each bucket that beats the heuristic
        by ``min_gain``, with its evidence. Other buckets stay with the heuristic."""
        entries = {}
        for b in self.buckets:
            best = b.outcome.best if b.outcome else None
            if best is None or b.family.short is None:
                continue  # nothing valid, or a family dispatch does not run
            heur = b.outcome.heuristic
            if self._heuristic_holds(b):
                continue  # within noise of the heuristic: the table would only add risk
            entries[b.key] = {
                "config": best.params, "fitness": round(best.fitness, 4), "median_us": round(best.median_us, 3),
                "peer": b.peer["name"], "peer_us": round(b.peer["us"], 3),
                "heuristic_us": round(heur.median_us, 3) if heur and heur.valid else None,
                "date": _now(), "device": self.info["device"], "triton": self.info["triton"],
                "torch": self.info["torch"], "family": b.family.short,
                "cases": [c.label() for c in b.cases], "candidates": len(b.outcome.results),
            }
            if b.confirm and b.confirm.get("gain") is not None:
                entries[b.key]["confirmed_gain"] = round(b.confirm["gain"], 4)
        return entries


def _base_key(key: str) -> str:
    return key.split(":", 1)[-1]


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
