"""Isolated candidate evaluation: a worker subprocess and the driver's client for it.

Why a subprocess: a candidate that hangs or faults the GPU must not kill the search,
and a CUDA fault poisons the process's context for good. So every candidate runs in
``python -m flashcore.tune.worker``; the driver (:class:`WorkerClient`) waits for each
answer with a timeout, kills the worker (its own process group) on a timeout or a
crash, and starts a fresh one after any failure that may have touched the context.

Why a fresh ``TRITON_CACHE_DIR`` per worker: no candidate can pick up a binary that
another run (or an earlier worker) left on disk. Inside one worker the JIT cache is
keyed by constexprs and launch options, and the worker checks every launch: on CUDA
the binary that the first launch used must carry the candidate's own
``num_warps``/``num_stages``/constexprs, and no two configs may share a binary hash
(:func:`check_binary`, :meth:`_Handler.track_binary`).

Each candidate is judged in order: (1) compile: the first launch (plus, on CPU, an
optional offline compile for a GPU target, which reports shared memory); a failure or
resource overflow makes it invalid; (2) correctness: ``bench.correctness.check_provider``
on ``sets`` fresh input sets, the last one x10, against the high-precision reference,
outputs poisoned with NaN; (3) timing: ``bench.timing.measure``, a graph-mode median
on CUDA (eager on CPU, where numbers are not performance claims).

Protocol: one JSON object per line. Requests on stdin; answers on the worker's
original stdout, which the worker moves away from fd 1 so that stray prints from
libraries cannot corrupt it.
"""

from __future__ import annotations

import json
import math
import os
import select
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from dataclasses import asdict
from typing import Any

from .search import Candidate, Result

START_TIMEOUT_S = 300.0  # imports and CUDA init on a cold machine
# Exceptions that are the compiler's verdict on a config; anything else raised near
# a launch may have faulted the GPU and earns the worker a restart.
_CLEAN_FAILURES = ("CompilationError", "OutOfResources", "PTXASError", "SpaceError")


# ----------------------------------------------------------------------------------
# Cases on the wire
# ----------------------------------------------------------------------------------
def case_to_json(case) -> dict:
    from .space import dtype_name

    d = asdict(case)
    d["dtype"] = dtype_name(case.dtype)
    return d


def case_from_json(d: dict):
    import torch

    from ..bench.cases import Case

    dtypes = {"fp16": torch.float16, "bf16": torch.bfloat16, "float32": torch.float32}
    return Case(**{**d, "dtype": dtypes[d["dtype"]]})


# ----------------------------------------------------------------------------------
# Binary identity (CUDA): what a launch really ran
# ----------------------------------------------------------------------------------
_LAUNCH_OPTIONS = ("num_warps", "num_stages", "num_ctas", "maxnreg")


def binary_identity(kernel) -> dict:
    """Hash, launch options and constexprs of a Triton ``CompiledKernel``."""
    md = kernel.metadata
    ident = {"hash": kernel.hash, "name": getattr(md, "name", "")}
    ident.update({k: getattr(md, k) for k in _LAUNCH_OPTIONS + ("shared",) if getattr(md, k, None) is not None})
    src = getattr(kernel, "src", None)
    names = getattr(getattr(src, "fn", None), "arg_names", [])
    consts = getattr(src, "constants", {}) or {}
    ident["constexprs"] = {names[p[0]]: _plain(v) for p, v in consts.items()
                           if isinstance(p, tuple) and len(p) == 1 and p[0] < len(names)}
    for attr in ("n_regs", "n_spills"):
        if getattr(kernel, attr, None) is not None:
            ident[attr] = int(getattr(kernel, attr))
    return ident


def spill_problem(spill_bytes: int) -> str | None:
    """Why a launched binary may not become a tuned entry: ptxas spilled registers.

    ``profile --offline`` (CI) fails tuned entries that spill, so the tuner rejects them
    before ``--apply`` rather than proposing them."""
    if spill_bytes:
        return f"spills: ptxas reports {spill_bytes} B of spill stores and loads; a tuned entry must not spill"
    return None


def _plain(v):
    v = getattr(v, "value", v)
    return v if isinstance(v, (int, float, bool, str)) or v is None else str(v)


def binary_params(family, config, params: dict) -> dict:
    """What the launched binary must show for this config: the kernel module's
    ``binary_params(config)`` when it maps them differently (Gluon: the ring depth is
    the ``STAGES`` constexpr, a warp-specialised launch counts every partition's warps),
    else the config's own fields."""
    mapper = getattr(getattr(family, "module", None), "binary_params", None)
    return mapper(config) if mapper is not None else params


def check_binary(params: dict, ident: dict) -> str | None:
    """Why the launched binary is not this config's own, or None.

    A parameter is checked when it is a launch option (``num_warps``...) or a
    constexpr of the same name upper-cased (``block_m`` -> ``BLOCK_M``). Parameters
    that are neither (e.g. a grid-shape choice) cannot be read from a binary.
    """
    for name, want in params.items():
        if name in _LAUNCH_OPTIONS and name in ident:
            got = ident[name]
        elif name.upper() in ident.get("constexprs", {}):
            got = ident["constexprs"][name.upper()]
        else:
            continue
        if got != want:
            return f"isolation: launched binary {ident.get('hash', '?')[:12]} has {name}={got}, config wants {want}"
    return None


def launched_kernels(jit_functions: list, run) -> list:
    """Run ``run()`` and return the ``CompiledKernel`` of each launch it made (CUDA)."""
    import triton

    handles: list = []

    def hook(metadata):
        data = metadata if isinstance(metadata, dict) else metadata.get()  # a LazyDict
        handles.append(data.get("function"))

    knobs = triton.knobs.runtime
    chain = knobs.launch_enter_hook
    if hasattr(chain, "add"):  # Triton >= 3.4: a HookChain
        chain.add(hook)
        try:
            run()
        finally:
            chain.remove(hook)
    else:  # older Triton: a single callable slot
        knobs.launch_enter_hook = hook
        try:
            run()
        finally:
            knobs.launch_enter_hook = chain
    by_handle = {}
    for fn in jit_functions:
        for caches in fn.device_caches.values():
            for kernel in caches[0].values():
                if getattr(kernel, "function", None) is not None:
                    by_handle[kernel.function] = kernel
    return [by_handle.get(h) for h in handles]


# ----------------------------------------------------------------------------------
# Worker side
# ----------------------------------------------------------------------------------
class _CandidateProvider:
    """A candidate as a bench Provider, so the shared correctness check runs it.

    ``run`` passes NaN-filled ``out``/``lse`` to the launcher: an element the kernel
    does not write stays NaN and fails the check (stronger than allocator poisoning).
    """

    def __init__(self, family, config):
        self.family, self.config, self.name = family, config, "candidate"
        self.lse_nan = False

    def supports(self, case):
        return None

    def prepare(self, case, q, k, v):
        self.case, self.q, self.k, self.v = case, q, k, v

    def run(self):
        import torch

        from ..reference import default_scale

        out = torch.full_like(self.q, float("nan"))
        lse = torch.full(self.q.shape[:3], float("nan"), device=self.q.device, dtype=torch.float32)
        out, lse = self.family.forward(self.q, self.k, self.v, self.case.causal,
                                       default_scale(self.case.head_dim), self.config, out=out, lse=lse)
        self.lse_nan |= bool(torch.isnan(lse).any())
        return out


class _Handler:
    """Worker state: loaded families, shared references, timing inputs, binaries seen."""

    def __init__(self):
        import torch

        self.torch = torch
        self.device = "cuda" if torch.cuda.is_available() else "cpu"
        self.families: dict[str, Any] = {}
        self.refs: dict = {}  # (case, seed) -> ReferenceCache, a few cases at most
        self.inputs: dict = {}  # (case, seed) -> timing rotation sets
        self.binaries: dict[str, str] = {}  # binary hash -> config key that produced it

    def hello(self) -> dict:
        import torch
        import triton

        from ..dispatch import arch_of

        dev = torch.device(self.device)
        name = torch.cuda.get_device_name(dev) if dev.type == "cuda" else "cpu (Triton interpreter)"
        return {"ok": True, "pid": os.getpid(), "device": name, "arch": arch_of(dev), "cuda": dev.type == "cuda",
                "torch": torch.__version__, "triton": triton.__version__,
                "interpret": os.environ.get("TRITON_INTERPRET", "0") not in ("", "0"),
                "cache_dir": os.environ.get("TRITON_CACHE_DIR", "")}

    def family(self, name: str):
        from .space import load_family

        if name not in self.families:
            self.families[name] = load_family(name)
        return self.families[name]

    # -- inputs ------------------------------------------------------------------
    def timing_inputs(self, case, seed: int) -> list:
        """Rotation sets for timing, shared by the peer and every candidate of a case."""
        from ..bench.cases import io_bytes
        from ..bench.correctness import make_inputs
        from ..bench.timing import l2_bytes, rotation_sets

        def build():
            n = rotation_sets(io_bytes(case), l2_bytes(self.device))
            gen = self.device if self.device == "cuda" else None
            return [make_inputs(case, self.device, seed=seed + i, gen_device=gen) for i in range(n)]

        return _lru(self.inputs, (repr(case), seed), build)

    def references(self, case, seed: int):
        from ..bench.correctness import ReferenceCache

        return _lru(self.refs, (repr(case), seed), lambda: ReferenceCache(self.device, seed))

    def measure(self, fn, sets: int, timing: dict):
        from ..bench.timing import measure

        mode = timing.get("mode", "auto")
        if mode == "auto":
            mode = "graph" if self.device == "cuda" else "eager"
        return measure(fn, mode=mode, rotate=list(range(sets)) if sets > 1 else None,
                       warmup_ms=timing.get("warmup_ms", 25.0), rep_ms=timing.get("rep_ms", 100.0),
                       device=self.device)

    # -- ops -----------------------------------------------------------------------
    def peer(self, msg: dict) -> dict:
        case = case_from_json(msg["case"])
        sets = self.timing_inputs(case, msg.get("seed", 0))
        return {"ok": True, "peers": {name: self._time_peer(name, case, sets, msg["timing"])
                                      for name in msg["names"]}}

    def _time_peer(self, name: str, case, sets: list, timing: dict) -> dict:
        """A peer timed exactly like a candidate: same rotation sets, same ``measure``."""
        import contextlib

        from ..bench.providers import get_providers

        try:
            provider = get_providers([name])[0]
            reason = provider.supports(case)
            if reason:
                return {"error": reason}
            with getattr(provider, "session", contextlib.nullcontext)(), self.torch.no_grad():
                calls = [provider.bound(case, q, k, v) for q, k, v in sets]
                return self.measure(lambda i: calls[i](), len(sets), timing).as_dict()
        except Exception as exc:  # noqa: BLE001 - an unavailable peer is data, not a crash
            return {"error": f"{type(exc).__name__}: {str(exc)[:300]}"}

    def evaluate(self, msg: dict) -> dict:
        family = self.family(msg["family"])
        case = case_from_json(msg["case"])
        params = msg["params"]
        report: dict = {"ok": True, "valid": False, "restart": False, "seconds": {}, "info": {}}
        stages = (("constraint", self._constraint), ("compile", self._compile),
                  ("correctness", self._correctness), ("timing", self._timing))
        ctx = {"family": family, "case": case, "params": params, "msg": msg}
        for stage, step in stages:
            t0 = time.perf_counter()
            try:
                reason = step(ctx, report)
            except Exception as exc:  # noqa: BLE001 - a failing candidate is a result
                reason = f"{type(exc).__name__}: {str(exc)[:400]}"
                report["restart"] = type(exc).__name__ not in _CLEAN_FAILURES
            report["seconds"][stage] = round(time.perf_counter() - t0, 4)
            if reason:
                report.update(stage=stage, reason=reason)
                return report
        report["valid"] = True
        return report

    def _constraint(self, ctx, report):
        ctx["config"] = ctx["family"].make(ctx["params"])
        arch = ctx["msg"].get("arch", 80)
        return (ctx["family"].check(ctx["params"], ctx["case"], arch)
                or self._supports(ctx["family"], ctx["case"], arch, ctx["msg"].get("seed", 0)))

    def _supports(self, family, case, arch: int, seed: int) -> str | None:
        if family.supports_fn is None:
            return None
        q, k, v = self.timing_inputs(case, seed)[0]
        return family.supports_fn(q, k, v, arch)

    def plan(self, msg: dict) -> dict:
        """Which family dispatch runs for each case, and whether each named family can."""
        from ..dispatch import kernel_for

        cases, seed = [case_from_json(c) for c in msg["cases"]], msg.get("seed", 0)
        picked = [kernel_for("auto", *self.timing_inputs(c, seed)[0], c.causal) for c in cases]
        supports = {name: [self._supports(self.family(name), c, msg["arch"], seed) for c in cases]
                    for name in msg.get("families", [])}
        return {"ok": True, "dispatch": picked, "supports": supports}

    def _compile(self, ctx, report):
        family, case, config = ctx["family"], ctx["case"], ctx["config"]
        arch = ctx["msg"].get("offline_arch")
        if arch and family.offline_fn is not None:
            res = family.offline_fn(config, case, arch)
            report["info"]["offline"] = {k: getattr(res, k, None) for k in
                                         ("registers", "spill_bytes", "shared_bytes", "smem_limit")}
            if getattr(res, "error", ""):
                return f"offline sm_{arch}: {res.error}"
            if getattr(res, "shared_bytes", 0) > getattr(res, "smem_limit", math.inf):
                return f"offline sm_{arch}: shared {res.shared_bytes} B > {res.smem_limit} B limit"
            if getattr(res, "spill_bytes", 0):
                return f"offline sm_{arch}: spills {res.spill_bytes} B (profile --offline fails spilling configs)"
        q, k, v = self.timing_inputs(case, ctx["msg"].get("seed", 0))[0]
        provider = _CandidateProvider(family, config)
        provider.prepare(case, q, k, v)
        if self.device != "cuda":
            provider.run()  # interpreter: nothing is compiled; the launch must still work
            report["info"]["binary"] = {"interpreter": True}
            return None
        kernels = launched_kernels(family.jit_functions(), lambda: (provider.run(), self.torch.cuda.synchronize()))
        return self._check_launch(ctx, report, kernels)

    def _check_launch(self, ctx, report, kernels) -> str | None:
        from .space import point_key

        known = [k for k in kernels if k is not None]
        if not known:
            return None if not kernels else "isolation: a launch used a binary outside the module's JIT caches"
        ident = binary_identity(known[0])
        report["info"]["binary"] = ident
        reason = check_binary(binary_params(ctx.get("family"), ctx.get("config"), ctx["params"]), ident)
        return (reason or self._spills(known[0], ident, ctx.get("msg", {}).get("arch", 90))
                or self.track_binary(ident["hash"], point_key(ctx["params"])))

    @staticmethod
    def _spills(kernel, ident: dict, arch: int) -> str | None:
        """Local memory (Triton's ``n_spills``, in words) is the stack frame plus spills, and
        only spills disqualify: the D=64 heuristic's launched binary has a 32 B frame and no
        spill. ``ptxas -v`` on the launched PTX tells them apart; the launch is specialised
        on its arguments, so this can differ from the generic offline compile."""
        if not ident.get("n_spills"):
            return None
        from ..profile.resources import ptxas_usage

        _, ident["spill_bytes"], ident["stack_bytes"] = ptxas_usage(kernel.asm["ptx"], arch)
        return spill_problem(ident["spill_bytes"])

    def track_binary(self, binary_hash: str, config_key: str) -> str | None:
        """Distinct configs must yield distinct binaries (the origin's bug was one for all)."""
        owner = self.binaries.setdefault(binary_hash, config_key)
        if owner != config_key:
            return f"isolation: binary {binary_hash[:12]} already launched for config {owner}"
        return None

    def _correctness(self, ctx, report):
        from ..bench.correctness import check_provider

        gate = ctx["msg"].get("gate", {})
        provider = _CandidateProvider(ctx["family"], ctx["config"])
        cache = self.references(ctx["case"], gate.get("seed", 0))
        result = check_provider(provider, ctx["case"], self.device, gate.get("sets", 3), cache=cache)
        report["info"]["max_abs_err"] = result.max_abs_err
        report["info"]["rel_err"] = result.rel_err
        if not result.correct:
            return result.reason or "error over budget"
        return "lse has NaN (an element not written)" if provider.lse_nan else None

    def _timing(self, ctx, report):
        sets = self.timing_inputs(ctx["case"], ctx["msg"].get("seed", 0))
        run = self._timed_run(ctx["family"], ctx["case"], ctx["config"], sets)
        timing = self.measure(run, len(sets), ctx["msg"].get("timing", {}))
        report["timing"] = timing.as_dict()
        return None

    def _timed_run(self, family, case, config, sets):
        """``run(i)``: one launch of ``config`` on rotation set i, into buffers of its own."""
        from ..reference import default_scale

        scale = default_scale(case.head_dim)
        outs = [(self.torch.empty_like(q), self.torch.empty(q.shape[:3], device=q.device,
                                                            dtype=self.torch.float32)) for q, _, _ in sets]

        def run(i):
            q, k, v = sets[i]
            family.forward(q, k, v, case.causal, scale, config, out=outs[i][0], lse=outs[i][1])

        return run

    def compare(self, msg: dict) -> dict:
        """Median times of already-validated configs, measured in alternating rounds.

        Clocks and temperature drift over a run: identical configs timed minutes apart
        differ by up to ~5% on the H100 (benchmarks/results/2026-11-22-h100-split-mask/).
        So a gain is only trusted when the configs alternate: each round times them all,
        in reverse order every other round (ABBA). Rounds should be long (the caller's
        rep_ms): short bursts run at other clocks than a sustained load
        (-d64-causal/abn_10ms vs abn_300ms)."""
        family, case = self.family(msg["family"]), case_from_json(msg["case"])
        sets = self.timing_inputs(case, msg.get("seed", 0))
        runs = [self._timed_run(family, case, family.make(params), sets) for params in msg["params"]]
        from ..bench.timing import round_order

        rounds_us: list[list[float]] = [[] for _ in runs]
        for r in range(msg["rounds"]):
            for i in round_order(list(range(len(runs))), r):
                rounds_us[i].append(self.measure(runs[i], len(sets), msg["timing"]).median_us)
        return {"ok": True, "rounds_us": rounds_us}


CACHED_CASES = 4  # a bucket may hold several cases; more than this is not expected


def _lru(cache: dict, key, build):
    if key in cache:
        cache[key] = cache.pop(key)  # most recent last
    else:
        while len(cache) >= CACHED_CASES:
            cache.pop(next(iter(cache)))  # free before building: GPU memory is finite
        cache[key] = build()
    return cache[key]


def _serve(proto) -> int:
    handler = _Handler()
    _send(proto, handler.hello())
    ops = {"eval": handler.evaluate, "peer": handler.peer, "plan": handler.plan, "compare": handler.compare,
           "ping": lambda m: {"ok": True}}
    for line in sys.stdin:
        msg = json.loads(line)
        if msg.get("op") == "exit":
            return 0
        try:
            reply = ops[msg["op"]](msg)
        except Exception as exc:  # noqa: BLE001 - report, let the driver decide
            reply = {"ok": False, "error": f"{type(exc).__name__}: {str(exc)[:400]}", "restart": True}
        _send(proto, reply)
    return 0


def _send(proto, obj: dict) -> None:
    proto.write(json.dumps(obj, default=str) + "\n")
    proto.flush()


def main() -> int:
    # The protocol keeps the original stdout; fd 1 then points at stderr, so prints
    # from any library (or the C level) land in the worker log, not in the protocol.
    proto = os.fdopen(os.dup(1), "w", buffering=1)
    os.dup2(2, 1)
    sys.stdout = sys.stderr
    return _serve(proto)


# ----------------------------------------------------------------------------------
# Driver side
# ----------------------------------------------------------------------------------
class WorkerError(RuntimeError):
    """The worker timed out or died; ``kind`` is "timeout" or "crash"."""

    def __init__(self, kind: str, message: str):
        super().__init__(message)
        self.kind = kind


class WorkerClient:
    """Starts, talks to, and restarts worker subprocesses. One request at a time."""

    def __init__(self, *, env: dict | None = None, log_dir: str | None = None,
                 start_timeout_s: float = START_TIMEOUT_S):
        self.env_extra = dict(env or {})
        self.log_dir = log_dir
        self.start_timeout_s = start_timeout_s
        self.proc: subprocess.Popen | None = None
        self.cache_dir: str | None = None
        self.info: dict = {}
        self.starts = 0
        self._buf = b""
        self._log = None

    # -- lifecycle -----------------------------------------------------------------
    def start(self) -> dict:
        self.cache_dir = tempfile.mkdtemp(prefix="flashcore-tune-triton-")
        env = {**os.environ, **self.env_extra, "TRITON_CACHE_DIR": self.cache_dir}
        self.starts += 1
        if self._log is not None:
            self._log.close()
        self._log = self._open_log()
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "flashcore.tune.worker"], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
            stderr=self._log, env=env, start_new_session=True,
        )
        self._buf = b""
        self.info = self._read(self.start_timeout_s, "start")
        return self.info

    def _open_log(self):
        # One file for every worker of a run (restarts append): runs on a lent GPU
        # bring back only a few files.
        if not self.log_dir:
            return tempfile.TemporaryFile()
        os.makedirs(self.log_dir, exist_ok=True)
        log = open(os.path.join(self.log_dir, "worker.log"), "a+b")
        log.write(f"==== worker start {self.starts}, TRITON_CACHE_DIR={self.cache_dir} ====\n".encode())
        log.flush()
        return log

    def ensure(self) -> dict:
        if self.proc is None or self.proc.poll() is not None:
            self.stop()
            self.start()
        return self.info

    def restart(self) -> None:
        """Drop the current worker; the next call starts a fresh one (new cache dir)."""
        self.stop(kill=True)

    def stop(self, kill: bool = False) -> None:
        proc, self.proc = self.proc, None
        if proc is not None:
            if not kill and proc.poll() is None:
                try:
                    proc.stdin.write(b'{"op": "exit"}\n')
                    proc.stdin.flush()
                    proc.wait(timeout=10)
                except (OSError, subprocess.TimeoutExpired):
                    pass
            self._kill(proc)
        if self.cache_dir:
            shutil.rmtree(self.cache_dir, ignore_errors=True)
            self.cache_dir = None

    def close(self) -> None:
        self.stop()
        if self._log is not None:
            self._log.close()
            self._log = None

    @staticmethod
    def _kill(proc: subprocess.Popen) -> None:
        # The worker leads its own process group (start_new_session): this ends it
        # and anything it started (a compiler), and nothing else.
        if proc.poll() is None:
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                proc.kill()
        proc.wait()
        for pipe in (proc.stdin, proc.stdout):
            if pipe:
                pipe.close()

    # -- requests ------------------------------------------------------------------
    def call(self, msg: dict, timeout_s: float) -> dict:
        self.ensure()
        try:
            self.proc.stdin.write((json.dumps(msg) + "\n").encode())
            self.proc.stdin.flush()
        except OSError:
            pass  # it died; _read reports how
        return self._read(timeout_s, msg.get("op", "?"))

    def _read(self, timeout_s: float, what: str) -> dict:
        deadline = time.monotonic() + timeout_s
        fd = self.proc.stdout.fileno()
        while b"\n" not in self._buf:
            left = deadline - time.monotonic()
            if left <= 0:
                self.stop(kill=True)
                raise WorkerError("timeout", f"worker gave no answer to {what} within {timeout_s:g} s; killed")
            ready, _, _ = select.select([fd], [], [], left)
            if ready:
                chunk = os.read(fd, 1 << 16)
                if not chunk:
                    raise WorkerError("crash", self._crash_message(what))
                self._buf += chunk
        line, self._buf = self._buf.split(b"\n", 1)
        return json.loads(line)

    def _crash_message(self, what: str) -> str:
        proc = self.proc
        code = proc.wait(timeout=10) if proc else None
        tail = self.log_tail()
        self.stop(kill=True)
        return f"worker died during {what} (exit code {code}){': ' + tail if tail else ''}"

    def log_tail(self, chars: int = 400) -> str:
        try:
            self._log.flush()
            self._log.seek(0, os.SEEK_END)
            size = self._log.tell()
            self._log.seek(max(0, size - chars))
            return self._log.read().decode(errors="replace").strip().replace("\n", " | ")
        except (OSError, ValueError, AttributeError):
            return ""


class WorkerEvaluator:
    """The search's evaluator for one bucket: every case of the bucket, in the worker.

    Fitness is the geometric mean over the bucket's cases of peer time / candidate
    time (one case: simply the ratio); ``median_us`` is the geometric mean of the
    candidate's medians.
    """

    def __init__(self, client: WorkerClient, family: str, cases: list, peer_us: list[float], *,
                 arch: int, timeout_s: float, gate: dict, timing: dict, seed: int = 0,
                 offline_arch: int | None = None):
        self.client, self.family, self.cases, self.peer_us = client, family, cases, peer_us
        self.arch, self.timeout_s, self.gate, self.timing = arch, timeout_s, gate, timing
        self.seed, self.offline_arch = seed, offline_arch

    def __call__(self, cand: Candidate) -> Result:
        medians, infos = [], []
        for case in self.cases:
            reply = self._ask(cand, case)
            if isinstance(reply, Result):
                return reply
            if not reply.get("valid"):
                return Result.invalid(cand, reply.get("stage", "worker"), reply.get("reason", "?"),
                                      **reply.get("info", {}))
            medians.append(reply["timing"]["median_us"])
            infos.append({**reply.get("info", {}), "timing": reply["timing"], "seconds": reply.get("seconds")})
        ratios = [p / m for p, m in zip(self.peer_us, medians)]
        return Result(cand.params, cand.generation, cand.origin, True, median_us=_geomean(medians),
                      fitness=_geomean(ratios), info={"cases": infos})

    def _ask(self, cand: Candidate, case):
        msg = {"op": "eval", "family": self.family, "case": case_to_json(case), "params": cand.params,
               "arch": self.arch, "gate": self.gate, "timing": self.timing, "seed": self.seed,
               "offline_arch": self.offline_arch}
        try:
            reply = self.client.call(msg, self.timeout_s)
        except WorkerError as exc:
            stage = "timeout" if exc.kind == "timeout" else "worker"
            return Result.invalid(cand, stage, str(exc), restarts=self.client.starts)
        if not reply.get("ok", False):
            self.client.restart()
            return Result.invalid(cand, "worker", reply.get("error", "worker error"))
        if reply.get("restart"):
            self.client.restart()  # the context may be poisoned: never reuse it
        return reply


def _geomean(xs: list[float]) -> float:
    return math.exp(sum(math.log(x) for x in xs) / len(xs))


if __name__ == "__main__":
    sys.exit(main())
