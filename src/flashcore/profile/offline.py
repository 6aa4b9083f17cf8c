"""``flashcore profile --offline``: compile every config we ship, with no GPU.

The configs are those of the tuned tables (``tuned/sm<arch>.json``), of the
portable kernel's heuristic over every supported head dim (multiples of 8 from
16 to 256), both causal values, representative query lengths and grid sizes, and
of the Gluon kernel's heuristic (sm_90a, D 64 and 128). Tuned entries of the
Triton TMA family (``hopper:...``) are listed as skipped: resources.py does not
compile it. Portable configs are compiled for sm_80, sm_89 and sm_90, Gluon ones
for sm_90a, through :mod:`flashcore.profile.resources` (Triton + ptxas); each fails
on spills, a compile error, or shared memory over the arch's per-block limit.

Compiles are deduplicated: the kernel specialises on (BLOCK_D, whether D is padded,
causal, config, dtype), so head dims that share those share one compile. The
heuristic is compiled in bf16 by default (``dtypes``): fp16 follows the same code
path, differing only in conversion instructions. A build the plan has for both sm_80 and
sm_89 runs Triton's front end once: ptxas builds sm_89 from the sm_80 PTX (``PTX_TWINS``).
"""

from __future__ import annotations

import concurrent.futures
import contextlib
import functools
import itertools
import multiprocessing
import os
import re
import time
from dataclasses import astuple, dataclass, field

from ..validate import HEAD_DIM_MULTIPLE, MAX_HEAD_DIM, MIN_HEAD_DIM

ARCHS = (80, 89, 90)
HEAD_DIMS = tuple(range(MIN_HEAD_DIM, MAX_HEAD_DIM + 1, HEAD_DIM_MULTIPLE))
# Decode (1), small (16), a 64-row block, and long prefill; grids under one wave (see
# BATCH_HEADS) and a large one: together they reach every branch of the heuristics.
SEQ_Q = (1, 16, 64, 1024, 4096, 8192)  # 1024, 8192: the Gluon heuristic's short and long causal branches
SEQ_K = 4096
# One query head (the small grids' key split across CTAs), four (under a wave, too many
# blocks for that: keys split between warpgroups for long causal rows), and many.
BATCH_HEADS = (1, 4, 1 << 16)
# Query heads per KV head: 4 packs the short queries' group into one block (PACK_GQA builds).
GROUPS = (1, 4)
# (Sq, B*H) cells of the Gluon heuristic that SEQ_Q x BATCH_HEADS misses: one pair of whole
# causal items a CTA on the D=32 / D=64 builds (``three_warpgroup_pairs_pay``), whose GQA
# launches spilled 20 B from v47 to v67 unseen by this gate. Part of the default sweep: a
# sweep narrowed to other query lengths (``seq_q``) leaves them out.
GLUON_CELLS = ((3000, 16),)
DTYPE_BYTES = {"bf16": 2, "fp16": 2}
# Tuned keys are dispatch.table_key: "bf16/d128/causal/s8192" (sub-wave grids "s512w1"),
# other families prefixed "hopper:".
_TUNED_KEY = re.compile(r"^(?:(\w+):)?(fp16|bf16)/d(\d+)/(causal|full)/s(\d+)(?:w1)?$")
COMPILABLE_FAMILIES = ("triton", "gluon")  # resources.py has no compile for hopper_fwd
# An sm_89 build of the portable kernel is ptxas for sm_89 on the PTX Triton emits for sm_80: the
# two modules differ only in their .target line (all 66 configs the plan shares between them,
# benchmarks/results/2026-11-26-cpu-offline-gate/; a test holds Triton to it). Sharing the
# front end saves ~0.8 s per compile, ~50 s of the gate on two cores.
PTX_TWINS = {89: 80}
GLUON_ARCH = 90


class OfflineError(ValueError):
    """A tuned table or an option is malformed."""


@dataclass
class Task:
    """One compile, and every (source, head dim) that uses it."""

    arch: int
    head_dim: int  # the representative compiled
    dtype: str
    causal: bool
    config: object  # the family's Config
    family: str = "triton"
    head_dims: set[int] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)
    ptx_from: int | None = None  # the arch whose Triton PTX this task's ptxas builds (PTX_TWINS)

    def key(self) -> tuple:
        from ..kernels.triton_fwd import block_d

        if self.family != "triton":  # Gluon specialises on the exact head dim
            return (self.arch, self.family, self.head_dim, self.dtype, self.causal, self.config)
        bd = block_d(self.head_dim)
        return (self.arch, bd, bd != self.head_dim, self.dtype, self.causal, self.config)


def _add(tasks: dict, arch: int, head_dim: int, dtype: str, causal: bool, config, source: str,
         family: str = "triton") -> None:
    task = Task(arch, head_dim, dtype, causal, config, family)
    task = tasks.setdefault(task.key(), task)
    task.head_dims.add(head_dim)
    task.sources.add(source)


def tuned_entries(arch: int) -> tuple[list[tuple[str, str, int, bool, object]], list[str]]:
    """(family, dtype, head_dim, causal, Config) per compilable entry of ``tuned/sm<arch>.json``,
    and the keys of other kernel families, which this sweep cannot compile."""
    from .. import dispatch

    entries, other = [], []
    for key, entry in dispatch.tuned_table(arch).items():
        match = _TUNED_KEY.match(key)
        if not match:
            raise OfflineError(f"tuned/sm{arch}.json: key {key!r} is not [family:]dtype/d<D>/<causal|full>/s<N>[w1]")
        family, dtype, head_dim, mask = match.group(1) or "triton", match.group(2), match.group(3), match.group(4)
        if family not in COMPILABLE_FAMILIES:
            other.append(f"sm{arch}:{key}")
            continue
        config_cls = dispatch.KERNELS[family].Config
        try:
            config = config_cls(**entry["config"])
        except (KeyError, TypeError) as exc:
            raise OfflineError(f"tuned/sm{arch}.json: entry {key!r}: expected a {family} config "
                               f"{{block_m, block_n, num_warps, num_stages, ...}}, got {entry!r}") from exc
        entries.append((family, dtype, int(head_dim), mask == "causal", config))
    return entries, other


def plan(archs=ARCHS, dtypes=("bf16",), head_dims=HEAD_DIMS, seq_q=SEQ_Q, tuned: bool = True,
         skipped: list | None = None) -> list[Task]:
    """The deduplicated compiles for the tuned tables and the heuristics.

    Tuned keys of kernel families this sweep cannot compile are appended to ``skipped``.
    """
    from ..kernels import gluon_fwd
    from ..kernels.triton_fwd import heuristic_config

    tasks: dict = {}
    for arch in archs:
        if tuned:
            entries, other = tuned_entries(arch)
            if skipped is not None:
                skipped.extend(other)
            for family, dtype, head_dim, causal, config in entries:
                _add(tasks, arch, head_dim, dtype, causal, config, "tuned", family)
        for dtype, head_dim, causal, sq, bh, group in itertools.product(
                dtypes, head_dims, (False, True), seq_q, BATCH_HEADS, GROUPS):
            if bh >= group:
                config = heuristic_config(arch, head_dim, DTYPE_BYTES[dtype], causal, sq, max(sq, SEQ_K), bh, group)
                _add(tasks, arch, head_dim, dtype, causal, config, "heuristic")
        if arch == GLUON_ARCH:
            gluon_dims = _gluon_dims(head_dims)
            # Key rows of Sq as well as of max(Sq, SEQ_K): D=128 full rows under 2k keys
            # take a build of their own (ping-pong turns, no stream-K).
            cells = [*itertools.product(seq_q, BATCH_HEADS), *(GLUON_CELLS if tuple(seq_q) == SEQ_Q else ())]
            for dtype, head_dim, causal, (sq, bh) in itertools.product(dtypes, gluon_dims, (False, True), cells):
                for sk in {max(sq, SEQ_K), sq}:
                    config = gluon_fwd.heuristic_config(arch, head_dim, DTYPE_BYTES[dtype], causal, sq, sk, bh)
                    _add(tasks, arch, head_dim, dtype, causal, config, "heuristic", "gluon")
    for key, task in tasks.items():
        source = PTX_TWINS.get(task.arch)
        if task.family == "triton" and (source,) + key[1:] in tasks:
            task.ptx_from = source
    return sorted(tasks.values(), key=lambda t: (t.arch, t.family, t.head_dim, t.dtype, t.causal,
                                                 astuple(t.config)))


def _gluon_dims(head_dims) -> list[int]:
    """Every head dim the Gluon kernel takes runs one of its builds (32, 64, 128, 256), its S
    GEMM over D's column chunks (``gluon_fwd.s_chunks``) and, between the builds, O in parts
    (``gluon_fwd.o_parts``, with configs of their own): each build compiles at its own D and
    at the D of its range whose O runs in parts with the most S chunks (80, 176; 48 on the D=64
    build, whose O stays whole) and at the D whose O's second part is widest (96 on the D=128
    build: its 32 columns hold 8 registers a thread more than D=80's 16, and its stream-K
    192x64 build spilled 192 B that the gate, compiling D=80 alone, did not see)."""
    from ..kernels import gluon_fwd as gf

    taken = [d for d in head_dims if d % 8 == 0 and gf.MIN_HEAD_DIM <= d <= gf.MAX_HEAD_DIM]
    builds = {gf.padded_head_dim(d) for d in taken}

    def rank(d):
        gemm = gf.gemm_head_dim(d)
        return len(gf.o_parts(gemm)), len(gf.s_chunks(gemm)), -d

    def width(d):
        parts = gf.o_parts(gf.gemm_head_dim(d))
        return len(parts), parts[-1][1], -d

    most = {max((d for d in taken if gf.padded_head_dim(d) == b), key=key) for b in builds for key in (rank, width)}
    return sorted(builds | {gf.gemm_head_dim(d) for d in most if gf.gemm_head_dim(d) not in builds})


def _compile(task: Task, twins: tuple[int, ...] = ()) -> list:
    """The task's report, then one per arch of ``twins`` (ptxas on the task's PTX)."""
    # Top level so a process pool can pickle it.
    from .resources import STANDARD_LAUNCH, compile_gluon_fwd, compile_triton_fwd_twins

    # Generic, and specialised on a typical launch's integers as Triton does at run time:
    # both must pass, and the worse one is reported. Specialised, the Gluon D=64 causal
    # 192x128 build spilled 144 B on the H100 while its generic compile had none.
    if task.family == "gluon":
        per_launch = [[compile_gluon_fwd(task.head_dim, task.dtype, task.causal, task.config, launch)]
                      for launch in (None, STANDARD_LAUNCH)]
    else:
        per_launch = [compile_triton_fwd_twins(task.arch, task.head_dim, task.dtype, task.causal, task.config,
                                               launch, twins) for launch in (None, STANDARD_LAUNCH)]
    return [max(reports, key=lambda r: (bool(r.error), not r.ok, r.spill_bytes, r.stack_bytes))
            for reports in zip(*per_launch)]


def _interpreting() -> bool:
    import triton

    return bool(triton.knobs.runtime.interpret)


@contextlib.contextmanager
def _compiler_env():
    # Spawned workers import triton afresh and read TRITON_INTERPRET then: turn it off
    # so that @triton.jit builds compilable functions there (resources.py docstring).
    saved = os.environ.get("TRITON_INTERPRET")
    os.environ["TRITON_INTERPRET"] = "0"
    try:
        yield
    finally:
        if saved is None:
            os.environ.pop("TRITON_INTERPRET", None)
        else:
            os.environ["TRITON_INTERPRET"] = saved


def run(tasks: list[Task], jobs: int = 2) -> list[tuple[Task, object]]:
    """Compile each task, in worker processes when ``jobs`` > 1 or this process interprets.
    A task with ``ptx_from`` takes its report from the compile of that arch's task, where
    ``tasks`` holds one."""
    if not tasks:
        return []
    keys = [t.key() for t in tasks]
    present = set(keys)
    # The key of the compile whose PTX each task takes: its own, or its ptx_from twin's.
    sources = [(t.ptx_from,) + k[1:] if t.ptx_from is not None and (t.ptx_from,) + k[1:] in present else k
               for t, k in zip(tasks, keys)]
    builds = {k: t for t, k, src in zip(tasks, keys, sources) if k == src}
    twins = {k: () for k in builds}
    for t, k, src in zip(tasks, keys, sources):
        if k != src:
            twins[src] += (t.arch,)
    if jobs <= 1 and not _interpreting():
        reports = [_compile(t, twins[k]) for k, t in builds.items()]
    else:
        ctx = multiprocessing.get_context("spawn")  # fresh processes: no forked compiler state
        with _compiler_env(), concurrent.futures.ProcessPoolExecutor(
                max_workers=max(1, min(jobs, len(builds))), mp_context=ctx) as pool:
            reports = list(pool.map(_compile, builds.values(), twins.values()))
    by_key = {}
    for (k, task), found in zip(builds.items(), reports):
        for arch, report in zip((task.arch,) + twins[k], found):
            by_key[(arch,) + k[1:]] = report
    return [(t, by_key[k]) for t, k in zip(tasks, keys)]


@functools.lru_cache(maxsize=64)
def compile_one(arch: int, head_dim: int, dtype: str, causal: bool, config):
    """One compile report (cached), in a worker process when this process interprets."""
    ((_, report),) = run([Task(arch, head_dim, dtype, causal, config)], jobs=1)  # no twin: its own PTX
    return report


@dataclass
class OfflineResult:
    rows: list[dict]
    seconds: float
    dtypes: tuple[str, ...]
    skipped: list[str] = field(default_factory=list)  # tuned keys of families not compiled here

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.rows if not r["ok"]]

    def as_dict(self) -> dict:
        return {"mode": "offline", "seconds": round(self.seconds, 1), "heuristic_dtypes": list(self.dtypes),
                "compiles": len(self.rows), "failed": len(self.failed), "skipped_tuned_keys": self.skipped,
                "reports": self.rows}


def sweep(archs=ARCHS, dtypes=("bf16",), head_dims=HEAD_DIMS, seq_q=SEQ_Q, jobs: int = 2,
          tuned: bool = True) -> OfflineResult:
    start = time.perf_counter()
    skipped: list[str] = []
    tasks = plan(archs, dtypes, head_dims, seq_q, tuned, skipped)
    rows = []
    for task, report in run(tasks, jobs):
        row = report.as_dict()
        row.update(family=task.family, head_dims=sorted(task.head_dims), sources=sorted(task.sources),
                   problems=report.problems())
        rows.append(row)
    return OfflineResult(rows, time.perf_counter() - start, tuple(dtypes), skipped)
