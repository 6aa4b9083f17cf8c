"""``flashcore profile --offline``: compile every config we ship, with no GPU.

The configs are those of the tuned tables (``tuned/sm<arch>.json``) and of the
heuristic over every supported head dim (multiples of 8 from 16 to 256), both
causal values and representative query lengths. Each is compiled for sm_80, sm_89
and sm_90 through :mod:`flashcore.profile.resources` (Triton + ptxas), and fails on
spills, a compile error, or shared memory over the arch's per-block limit.

Compiles are deduplicated: the kernel specialises on (BLOCK_D, whether D is padded,
causal, config, dtype), so head dims that share those share one compile. The
heuristic is compiled in bf16 by default (``dtypes``): fp16 follows the same code
path, differing only in conversion instructions.
"""

from __future__ import annotations

import concurrent.futures
import multiprocessing
import re
import time
from dataclasses import astuple, dataclass, field

from ..validate import HEAD_DIM_MULTIPLE, MAX_HEAD_DIM, MIN_HEAD_DIM

ARCHS = (80, 89, 90)
HEAD_DIMS = tuple(range(MIN_HEAD_DIM, MAX_HEAD_DIM + 1, HEAD_DIM_MULTIPLE))
# Decode (1), small (16), a 64-row block, and long prefill: the heuristic's branches.
SEQ_Q = (1, 16, 64, 4096)
SEQ_K = 4096
DTYPE_BYTES = {"bf16": 2, "fp16": 2}
_TUNED_KEY = re.compile(r"^(fp16|bf16)/d(\d+)/(causal|full)/s(\d+)$")


class OfflineError(ValueError):
    """A tuned table or an option is malformed."""


@dataclass
class Task:
    """One compile, and every (source, head dim) that uses it."""

    arch: int
    head_dim: int  # the representative compiled
    dtype: str
    causal: bool
    config: object  # triton_fwd.Config
    head_dims: set[int] = field(default_factory=set)
    sources: set[str] = field(default_factory=set)

    def key(self) -> tuple:
        from ..kernels.triton_fwd import block_d

        bd = block_d(self.head_dim)
        return (self.arch, bd, bd != self.head_dim, self.dtype, self.causal, self.config)


def _add(tasks: dict, arch: int, head_dim: int, dtype: str, causal: bool, config, source: str) -> None:
    task = Task(arch, head_dim, dtype, causal, config)
    task = tasks.setdefault(task.key(), task)
    task.head_dims.add(head_dim)
    task.sources.add(source)


def tuned_entries(arch: int) -> list[tuple[str, int, bool, object]]:
    """(dtype, head_dim, causal, Config) for each entry of ``tuned/sm<arch>.json``."""
    from .. import dispatch
    from ..kernels.triton_fwd import Config

    out = []
    for key, entry in dispatch.tuned_table(arch).items():
        match = _TUNED_KEY.match(key)
        if not match:
            raise OfflineError(f"tuned/sm{arch}.json: key {key!r} is not dtype/d<D>/<causal|full>/s<N>")
        try:
            config = Config(**entry["config"])
        except (KeyError, TypeError) as exc:
            raise OfflineError(f"tuned/sm{arch}.json: entry {key!r}: expected config "
                               f"{{block_m, block_n, num_warps, num_stages}}, got {entry!r}") from exc
        out.append((match.group(1), int(match.group(2)), match.group(3) == "causal", config))
    return out


def plan(archs=ARCHS, dtypes=("bf16",), head_dims=HEAD_DIMS, seq_q=SEQ_Q, tuned: bool = True) -> list[Task]:
    """The deduplicated compiles for the tuned tables and the heuristic."""
    from ..kernels.triton_fwd import heuristic_config

    tasks: dict = {}
    for arch in archs:
        if tuned:
            for dtype, head_dim, causal, config in tuned_entries(arch):
                _add(tasks, arch, head_dim, dtype, causal, config, "tuned")
        for dtype in dtypes:
            for head_dim in head_dims:
                for causal in (False, True):
                    for sq in seq_q:
                        config = heuristic_config(arch, head_dim, DTYPE_BYTES[dtype], causal, sq, max(sq, SEQ_K))
                        _add(tasks, arch, head_dim, dtype, causal, config, "heuristic")
    return sorted(tasks.values(), key=lambda t: (t.arch, t.head_dim, t.dtype, t.causal, astuple(t.config)))


def _compile(task: Task):
    # Top level so a process pool can pickle it.
    from .resources import compile_triton_fwd

    return compile_triton_fwd(task.arch, task.head_dim, task.dtype, task.causal, task.config)


def run(tasks: list[Task], jobs: int = 2) -> list[tuple[Task, object]]:
    """Compile each task; ``jobs`` > 1 uses a process pool (spawned: no forked compiler state)."""
    if jobs <= 1:
        return [(t, _compile(t)) for t in tasks]
    ctx = multiprocessing.get_context("spawn")
    with concurrent.futures.ProcessPoolExecutor(max_workers=jobs, mp_context=ctx) as pool:
        return list(zip(tasks, pool.map(_compile, tasks)))


@dataclass
class OfflineResult:
    rows: list[dict]
    seconds: float
    dtypes: tuple[str, ...]

    @property
    def failed(self) -> list[dict]:
        return [r for r in self.rows if not r["ok"]]

    def as_dict(self) -> dict:
        return {"mode": "offline", "seconds": round(self.seconds, 1), "heuristic_dtypes": list(self.dtypes),
                "compiles": len(self.rows), "failed": len(self.failed), "reports": self.rows}


def sweep(archs=ARCHS, dtypes=("bf16",), head_dims=HEAD_DIMS, seq_q=SEQ_Q, jobs: int = 2,
          tuned: bool = True) -> OfflineResult:
    start = time.perf_counter()
    tasks = plan(archs, dtypes, head_dims, seq_q, tuned)
    rows = []
    for task, report in run(tasks, jobs):
        row = report.as_dict()
        row.update(head_dims=sorted(task.head_dims), sources=sorted(task.sources), problems=report.problems())
        rows.append(row)
    return OfflineResult(rows, time.perf_counter() - start, tuple(dtypes))
