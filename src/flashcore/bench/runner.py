"""The bench loop: for every case, every provider: supports? correct? how fast?

Entry points:

- :func:`plan_cases` turns preset names and custom shapes into ``(preset, Case)`` pairs;
- :func:`run_bench` runs a :class:`Plan` and returns a :class:`BenchResult`
  (``meta`` + flat ``records``, the JSON/CSV schema "flashcore.bench/1").

A provider that is missing, unsupported, out of memory or raising gets its cell
marked with the reason, and the run goes on. Ctrl-C (or ``Plan.time_limit_s``)
stops the loop; the result then holds the cases finished so far and says why it
stopped. A loop that stops moving for ``Plan.stall_limit_s`` (a kernel that never
finishes) ends the process with status ``STALL_EXIT``; ``on_case`` has written the
cases finished before it.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime
import hashlib
import os
import platform
import subprocess
import sys
import threading
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable

import torch

from . import clocks, timing
from .cases import DTYPE_NAMES, Case, both_causal, filter_causal, flops, io_bytes, parse_shape, preset
from .correctness import ReferenceCache, check_provider, make_inputs
from .providers import Provider, Unsupported, get_providers, versions_of_peers

SCHEMA = "flashcore.bench/1"
RECORD_FIELDS = (
    "provider", "dtype", "B", "Hq", "Hkv", "Sq", "Sk", "D", "causal", "mode",
    "median_us", "p10_us", "p90_us", "tflops", "pct_of_ceiling",
    "correct", "rel_err", "max_abs_err", "error",
    # beyond the list: where the row comes from and how it ended
    "preset", "layout", "status", "reps", "calls_per_sample", "note",
    # the SM clock (MHz) and board power (W) while the record was timed (``clocks``): medians
    "sm_mhz", "power_w",
)
STATUSES = ("ok", "incorrect", "missing", "unsupported", "oom", "error")
STALL_EXIT = 124  # the status of coreutils' timeout
CPU_WARNING = ("CPU timings (time.perf_counter, Triton interpreter or pure PyTorch): they check "
               "that the harness and the providers work; they are not performance claims.")


@dataclass
class Plan:
    cases: list[tuple[str, Case]]  # (preset name, case)
    providers: list[str] | None = None  # None: every known provider
    modes: tuple[str, ...] = ("eager",)
    device: str = "cpu"
    sets: int = 5
    warmup_ms: float = 50.0
    rep_ms: float = 250.0
    seed: int = 0
    time_limit_s: float | None = None
    cpu_threads: int | None = 1  # torch threads on CPU: 1 keeps CPU timings stable on shared machines
    # Timing rounds per case: the case's providers take turns, each timed for rep_ms / rounds
    # (plus its warm-up) per round, order reversed every other round, samples pooled. A GPU
    # that heats and slows during a case then slows every provider alike (docs/bench.md).
    rounds: int = 1
    # On a GPU, sample the SM clock and power while cells are timed (``clocks``; a child
    # process and a reader thread that wakes every 20 ms): off for host-latency studies.
    clocks: bool = True
    # Seconds without progress (a check, or a provider's timing round) after which the process
    # ends (``_Watchdog``); None: never.
    stall_limit_s: float | None = None


@dataclass
class BenchResult:
    meta: dict
    records: list[dict] = field(default_factory=list)
    stopped: str = ""  # why the run stopped early ("" when it finished)

    def as_json(self) -> dict:
        return {**self.meta, "stopped": self.stopped or None, "records": self.records}

    @classmethod
    def from_json(cls, doc: dict) -> BenchResult:
        """The inverse of ``as_json``; a written bench.json's ``summary`` is derived, so left out."""
        meta = {k: v for k, v in doc.items() if k not in ("records", "stopped", "summary")}
        return cls(meta=meta, records=doc["records"], stopped=doc.get("stopped") or "")


def plan_cases(presets: list[str], shapes: list[str] | None = None, dtype: torch.dtype | None = None,
               causal: str = "both") -> list[tuple[str, Case]]:
    """Preset cases, then custom shapes (each unmasked and causal), filtered by ``causal``."""
    cases = [(name, c) for name in presets for c in filter_causal(preset(name, dtype), causal)]
    for text in shapes or []:
        custom = parse_shape(text, dtype=dtype or torch.bfloat16)
        cases += [("custom", c) for c in filter_causal(both_causal(custom), causal)]
    return cases


# ----------------------------------------------------------------------------------
# Records
# ----------------------------------------------------------------------------------
def base_record(preset_name: str, case: Case, provider: str, mode: str) -> dict:
    record = dict.fromkeys(RECORD_FIELDS)
    record.update(provider=provider, preset=preset_name, dtype=DTYPE_NAMES.get(case.dtype, str(case.dtype)),
                  B=case.batch, Hq=case.heads_q, Hkv=case.hkv, Sq=case.seq_q, Sk=case.sk, D=case.head_dim,
                  causal=case.causal, layout=case.layout, mode=mode, error="", note="")
    return record


def status_of_reason(reason: str) -> str:
    return "missing" if reason.startswith("missing") else "unsupported"


def classify(exc: BaseException) -> tuple[str, str]:
    """(status, message) for an exception raised by a provider."""
    if isinstance(exc, Unsupported):
        text = _first_line(exc, limit=500)
        return "unsupported", text if text.startswith("unsupported") else f"unsupported: {text}"
    if isinstance(exc, torch.OutOfMemoryError):
        return "oom", f"out of memory: {_first_line(exc)}"
    return "error", f"{type(exc).__name__}: {_first_line(exc)}"


def _first_line(exc: BaseException, limit: int = 300) -> str:
    text = str(exc).strip().splitlines()
    return (text[0] if text else "")[:limit]


def _finite(x: float | None) -> float | None:
    # JSON has no inf/NaN: a NaN output's infinite error is None plus the reason in "error".
    return x if x is not None and x == x and abs(x) != float("inf") else None


# ----------------------------------------------------------------------------------
# One cell: a provider on a case, in every mode
# ----------------------------------------------------------------------------------
class CaseRunner:
    def __init__(self, plan: Plan, ceilings: dict, timer: timing.Timer | None,
                 sampler: clocks.ClockSampler | None = None):
        self.plan, self.ceilings, self.timer, self.sampler = plan, ceilings, timer, sampler
        self.windows: list[tuple[dict, list]] = []  # (record, its timing windows) for the clock fields
        self.device = torch.device(plan.device)
        self.cache = ReferenceCache(self.device, plan.seed)
        self.timing_case: Case | None = None
        self.timing_sets: list = []

    def check(self, preset_name: str, case: Case, provider: Provider) -> list[dict]:
        """One record per mode with the correctness result; :meth:`time_round` then
        :meth:`finish` add the timing. A cell that cannot run comes back with its status set."""
        records = [base_record(preset_name, case, provider.name, m) for m in self.plan.modes]
        try:
            reason = provider.supports(case)
        except Exception as exc:  # noqa: BLE001 - a provider bug is reported, not fatal
            return self._fail(records, *classify(exc))
        if reason:
            return self._fail(records, status_of_reason(reason), reason)
        failure = None
        try:
            with provider.session():
                self._check(provider, case, records)
        except Exception as exc:  # noqa: BLE001
            failure = classify(exc)
        if failure:  # outside the except block: its traceback no longer pins the tensors
            self._free()
            return self._fail(records, *failure)
        return records

    def time_round(self, provider: Provider, case: Case, records: list[dict], pools: dict, rounds: int) -> None:
        """One timing round of a cell: each mode still pending gets rep_ms / rounds of samples,
        appended to ``pools[mode]`` as (samples, calls, clock)."""
        pending = [r for r in records if r["status"] is None]
        if not pending:
            return
        failure = None
        try:
            with provider.session():
                for record in pending:
                    self._time(provider, case, record, pools, rounds)
        except Exception as exc:  # noqa: BLE001 - entering or leaving the session failed
            failure = classify(exc)
        if failure:
            self._free()
            self._fail(pending, *failure)

    def finish(self, case: Case, records: list[dict], pools: dict) -> None:
        """Summarise each mode's rounds into its record: the time is the mean of the rounds'
        medians (with the order reversed every other round, an even number of rounds cancels a
        drift that is linear in time, as an ABBA design does); p10/p90 and reps are over all
        the samples."""
        for record in records:
            pooled = pools.get(record["mode"])
            if record["status"] is not None or not pooled:
                continue
            samples = [x for part, _, _ in pooled for x in part]
            t = timing.summarize(samples, pooled[0][1], pooled[0][2], record["mode"])
            medians = [timing.summarize(part, calls, clock, record["mode"]).median_us for part, calls, clock in pooled]
            t = dataclasses.replace(t, median_us=sum(medians) / len(medians))
            tflops = flops(case) / (t.median_us * 1e-6) / 1e12 if t.median_us > 0 else None
            ceiling = self.ceilings.get("matmul_tflops", {}).get(record["dtype"])
            record.update(median_us=t.median_us, p10_us=t.p10_us, p90_us=t.p90_us, reps=t.reps,
                          calls_per_sample=t.calls_per_sample, tflops=tflops,
                          pct_of_ceiling=100.0 * tflops / ceiling if ceiling and tflops is not None else None,
                          status="ok" if record["correct"] else "incorrect")
            self.windows.append((record, pools.get(("windows", record["mode"]), [])))
            self.read_clocks(self.windows[-1:])

    def read_clocks(self, entries: list[tuple[dict, list]] | None = None) -> None:
        """The clock fields of these records (default: every timed one) from the samples so far."""
        if self.sampler is not None:
            for record, windows in self.windows if entries is None else entries:
                record.update(self.sampler.window(windows))

    def _check(self, provider: Provider, case: Case, records: list[dict]) -> None:
        check = check_provider(provider, case, self.device, self.plan.sets, cache=self.cache)
        note = getattr(provider, "note", "")
        for record in records:
            record.update(correct=check.correct, max_abs_err=_finite(check.max_abs_err),
                          rel_err=_finite(check.rel_err), note=note)
            if not check.correct:
                record["error"] = f"incorrect: {check.reason}"

    def _time(self, provider: Provider, case: Case, record: dict, pools: dict, rounds: int) -> None:
        failure = None
        try:
            runs = [provider.bound(case, *s) for s in self._timing_inputs(case)]
            start = clocks.now()
            part = timing.measure_samples(lambda i: runs[i](), mode=record["mode"], rotate=runs,
                                          warmup_ms=self.plan.warmup_ms, rep_ms=self.plan.rep_ms / rounds,
                                          timer=self.timer, device=self.device)
            pools.setdefault(("windows", record["mode"]), []).append((start, clocks.now()))
        except Exception as exc:  # noqa: BLE001 - one mode failing keeps the other
            failure = classify(exc)
        finally:
            runs = None
        if failure:
            self._free()
            status, error = failure
            record.update(status=status, error=f"{record['mode']}: {error}")
            return
        pools.setdefault(record["mode"], []).append(part)

    def _timing_inputs(self, case: Case) -> list:
        """Input sets to rotate through: enough to exceed 2x L2 (one on CPU or big shapes)."""
        if case != self.timing_case:
            count = timing.rotation_sets(io_bytes(case), timing.l2_bytes(self.device))
            self.timing_case, self.timing_sets = case, []
            for i in range(count):
                if i == 0:
                    data = self.cache.get(case, 0, self.plan.sets)  # reuse: no extra memory
                    self.timing_sets.append((data.q, data.k, data.v))
                else:
                    gen = self.device if self.device.type == "cuda" else None
                    self.timing_sets.append(make_inputs(case, self.device, seed=10_000 + i, gen_device=gen))
        return self.timing_sets

    def _fail(self, records: list[dict], status: str, error: str) -> list[dict]:
        for record in records:
            record.update(status=status, error=error)
        return records

    def end_case(self) -> None:
        self.timing_case, self.timing_sets = None, []
        self.cache = ReferenceCache(self.device, self.plan.seed)
        self._free()

    def _free(self) -> None:
        if self.device.type == "cuda":
            torch.cuda.empty_cache()


class _Watchdog:
    """Ends the process once the loop has not moved for ``limit_s`` (None: never). A kernel
    that never finishes holds the main thread in a CUDA synchronise, where neither an
    exception nor Ctrl-C reaches it: kernel log v52's ping-pong turns hung so, and a timing
    script read the hang as a slow cell. The message names the step that stalled;
    ``cleanup`` (the clock sampler's stop: its nvidia-smi child) runs before the exit."""

    def __init__(self, limit_s: float | None, cleanup: Callable[[], None] | None = None):
        self.limit_s, self.what, self.last = limit_s, "the start", time.monotonic()
        self._cleanup = cleanup
        self._done = threading.Event()

    def __enter__(self) -> "_Watchdog":
        if self.limit_s is not None:
            threading.Thread(target=self._watch, name="flashcore-bench-watchdog", daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        self._done.set()

    def beat(self, what: str) -> None:
        self.what, self.last = what, time.monotonic()

    def _watch(self) -> None:
        while not self._done.wait(min(5.0, self.limit_s / 4)):
            stalled = time.monotonic() - self.last
            if stalled > self.limit_s and not self._done.is_set():
                sys.stderr.write(
                    f"flashcore bench: no progress for {stalled:.0f} s in {self.what} (stall limit "
                    f"{self.limit_s:g} s): a kernel that never finishes, or a compile slower than the limit "
                    "(raise it with --stall-limit). The cases finished before it are written. Exiting with "
                    f"status {STALL_EXIT}.\n")
                sys.stderr.flush()
                if self._cleanup is not None:
                    self._cleanup()
                os._exit(STALL_EXIT)


class _OutOfTime(Exception):
    pass


def run_bench(
    plan: Plan,
    *,
    timer: timing.Timer | None = None,
    ceilings: dict | None = None,
    progress: Callable[[int, int, str], None] | None = None,
    on_case: Callable[[BenchResult], None] | None = None,
    sampler: clocks.ClockSampler | None = None,
) -> BenchResult:
    """Run the plan. ``ceilings`` None measures them; ``progress(done, total, what)`` is
    called before each cell; ``on_case(result)`` after each case (checkpoints). ``sampler``
    (started and stopped here) gives each record its clock fields; on a GPU the default
    samples it through nvidia-smi."""
    device = torch.device(plan.device)
    providers = get_providers(plan.providers)
    if ceilings is None:
        dtypes = tuple(dict.fromkeys(c.dtype for _, c in plan.cases))
        with _cpu_threads(device, plan.cpu_threads):
            ceilings = timing.ceilings(device, dtypes, timer=timer, rep_ms=min(plan.rep_ms, 200.0))
    result = BenchResult(meta=run_meta(plan, providers, ceilings, timer))
    if sampler is None and device.type == "cuda" and plan.clocks:
        sampler = clocks.ClockSampler(gpu_id(device))
    if sampler is not None and not sampler.start():
        sampler = None
    runner = CaseRunner(plan, ceilings, timer, sampler)
    deadline = time.monotonic() + plan.time_limit_s if plan.time_limit_s else None
    total, done = len(plan.cases) * len(providers), 0
    watchdog = _Watchdog(plan.stall_limit_s, sampler.stop if sampler is not None else None)
    try:
        with torch.no_grad(), _cpu_threads(device, plan.cpu_threads), watchdog:
            for preset_name, case in plan.cases:
                cells = []
                for provider in providers:
                    if deadline and time.monotonic() > deadline:
                        raise _OutOfTime
                    what = f"{preset_name}: {case.short_label()} {case.dtype_name} · {provider.name}"
                    if progress:
                        progress(done, total, what)
                    watchdog.beat(f"the check of {what}")
                    cells.append((provider, runner.check(preset_name, case, provider), {}))
                    done += 1
                rounds = max(1, plan.rounds)
                for r in range(rounds):
                    for provider, records, pools in timing.round_order(cells, r):
                        watchdog.beat(f"timing round {r + 1} of {preset_name}: {case.short_label()} "
                                      f"{case.dtype_name} · {provider.name}")
                        runner.time_round(provider, case, records, pools, rounds)
                # A case's records land together, once all of its rounds ran: a stop keeps whole cases.
                for provider, records, pools in cells:
                    runner.finish(case, records, pools)
                    result.records += records
                runner.end_case()
                if on_case:
                    on_case(result)
    except KeyboardInterrupt:
        result.stopped = "interrupted (Ctrl-C): results so far"
    except _OutOfTime:
        result.stopped = f"time limit of {plan.time_limit_s:g} s reached: results so far"
    finally:
        if sampler is not None:
            time.sleep(0.1)  # the last window's samples
            runner.read_clocks()
            sampler.stop()
    if progress:
        progress(done, total, "done")
    if device.type == "cuda":  # clocks after the run too: a drop means throttling during it
        result.meta["device"]["clocks_end"] = {k: v for k, v in gpu_state(device).items() if k != "driver_version"} or None
    return result


@contextlib.contextmanager
def _cpu_threads(device: torch.device, threads: int | None):
    # With two intra-op threads on a busy 2-core box, one call in ten stalls for ~10 ms.
    previous = torch.get_num_threads()
    if device.type == "cpu" and threads:
        torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


# ----------------------------------------------------------------------------------
# Environment: device, versions, git
# ----------------------------------------------------------------------------------
def run_meta(plan: Plan, providers: list[Provider], ceilings: dict, timer) -> dict:
    device = torch.device(plan.device)
    clock = timer.name if timer else timing.default_timer(device).name
    return {
        "schema": SCHEMA,
        "device": device_info(device),
        "versions": versions(),
        "git_sha": git_sha(),
        "source_digest": source_digest(),
        "timestamp": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "ceilings": ceilings,
        "timer": clock,
        "warning": CPU_WARNING if device.type != "cuda" else None,
        "settings": {
            "providers": [p.name for p in providers], "modes": list(plan.modes), "sets": plan.sets,
            "warmup_ms": plan.warmup_ms, "rep_ms": plan.rep_ms, "rounds": plan.rounds, "seed": plan.seed,
            "cpu_threads": plan.cpu_threads if device.type == "cpu" else None,
            "clocks": plan.clocks,
            "presets": list(dict.fromkeys(name for name, _ in plan.cases)),
        },
    }


def device_info(device: torch.device) -> dict:
    if device.type != "cuda":
        return {"type": "cpu", "name": platform.processor() or platform.machine(), "capability": None,
                "driver": None, "sm_count": None, "clocks": None, "cores": os.cpu_count()}
    props = torch.cuda.get_device_properties(device)
    smi = gpu_state(device)
    return {
        "type": "cuda",
        "name": props.name,
        "capability": f"sm_{props.major}{props.minor}",
        "driver": smi.pop("driver_version", None),
        "sm_count": props.multi_processor_count,
        "memory_gib": round(props.total_memory / 2**30, 1),
        "l2_bytes": getattr(props, "L2_cache_size", None),
        "clock_rate_khz": getattr(props, "clock_rate", None),  # cudaDeviceProp.clockRate: max SM clock
        "clocks": smi or None,
    }


def gpu_ids(device: torch.device) -> list[str]:
    """nvidia-smi's names for this GPU, best first: its UUID (right under
    CUDA_VISIBLE_DEVICES, where CUDA's index is not nvidia-smi's), then the index."""
    props = torch.cuda.get_device_properties(device)
    uuid = str(getattr(props, "uuid", "") or "")
    return ([uuid if uuid.startswith("GPU-") else f"GPU-{uuid}"] if uuid else []) + [str(device.index or 0)]


def _answering(device: torch.device) -> tuple[str, dict]:
    """(the first of ``gpu_ids`` that nvidia-smi answers to, its answer); (the index, {})
    where none does."""
    ids = gpu_ids(device)
    for gpu in ids:
        found = nvidia_smi(gpu)
        if found:
            return gpu, found
    return ids[-1], {}


def gpu_id(device: torch.device) -> str:
    """The name nvidia-smi knows this GPU by (UUID, else index)."""
    return _answering(device)[0]


def gpu_state(device: torch.device) -> dict:
    """nvidia-smi's view of this GPU (by UUID, else by index); {} without nvidia-smi."""
    return _answering(device)[1]


SMI_FIELDS = ("driver_version", "clocks.sm", "clocks.mem", "clocks.max.sm", "clocks.max.mem",
              "power.draw", "power.limit", "temperature.gpu", "pstate")


def nvidia_smi(gpu: str) -> dict:
    """Driver, clocks (MHz), power (W), temperature: read-only query; {} when unavailable."""
    cmd = ["nvidia-smi", f"--query-gpu={','.join(SMI_FIELDS)}", "--format=csv,noheader,nounits", "-i", gpu]
    try:
        out = subprocess.run(cmd, capture_output=True, text=True, timeout=10, check=True).stdout
    except (OSError, subprocess.SubprocessError):
        return {}
    values = [v.strip() for v in out.strip().splitlines()[0].split(",")] if out.strip() else []
    if len(values) != len(SMI_FIELDS):
        return {}
    return {k.replace(".", "_"): v for k, v in zip(SMI_FIELDS, values)}


def versions() -> dict:
    import triton

    import flashcore

    found = {
        "flashcore": flashcore.__version__,
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda,
        "cudnn": torch.backends.cudnn.version() if torch.backends.cudnn.is_available() else None,
        "python": platform.python_version(),
    }
    found.update(versions_of_peers())
    try:
        from torch.nn.attention import current_flash_attention_impl

        found["sdpa_flash_impl"] = current_flash_attention_impl()
    except ImportError:
        pass
    return found


def git_sha() -> str | None:
    """HEAD of the checkout flashcore is imported from, "+dirty" with local changes; None outside git.

    ``FLASHCORE_GIT_SHA`` overrides it: remote GPU machines get a copy of the tree without .git.
    """
    if os.environ.get("FLASHCORE_GIT_SHA"):
        return os.environ["FLASHCORE_GIT_SHA"]
    where = Path(__file__).resolve().parent
    try:
        sha = subprocess.run(["git", "rev-parse", "HEAD"], cwd=where, capture_output=True, text=True,
                             timeout=5, check=True).stdout.strip()
        dirty = subprocess.run(["git", "status", "--porcelain", "--untracked-files=no"], cwd=where,
                               capture_output=True, text=True, timeout=5, check=True).stdout.strip()
    except (OSError, subprocess.SubprocessError):
        return None
    return f"{sha}+dirty" if dirty else sha


SOURCE_SUFFIXES = (".py", ".json")


def source_digest(root: Path | None = None) -> str:
    """The first 16 hex digits of a SHA-256 over the package's sources (every ``.py`` and
    ``.json`` file under ``root``, the imported flashcore package by default: relative path and
    bytes, in path order). It names the code that ran where ``git_sha`` cannot: a GPU machine's
    copy of the tree may carry the git metadata of an older commit (two committed runs read
    "+dirty" on a stale sha). The same files give the same digest on any machine, so a checkout
    can check a result against a commit."""
    root = Path(__file__).resolve().parents[1] if root is None else Path(root)
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts):
        digest.update(path.relative_to(root).as_posix().encode() + b"\0")
        digest.update(path.read_bytes() + b"\0")
    return digest.hexdigest()[:16]
