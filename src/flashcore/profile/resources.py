"""Offline compile reports: registers, spills and shared memory per (arch, config).

Compiles the Triton kernels for sm_80/sm_89/sm_90 targets with no GPU
(``triton.compile`` with a ``GPUTarget``) and reads registers, spills and stack
from the log of the ``ptxas -v`` run that built the cubin (or, when the cubin came
from Triton's cache, from a run of Triton's bundled ``ptxas -v`` on the PTX).

Compile in a process where ``TRITON_INTERPRET`` is off: with it on, every
``@triton.jit`` function (ours and triton.language's own helpers) is an
interpreted function the compiler refuses. ``offline.run`` compiles in fresh
worker processes when this process interprets.
"""

from __future__ import annotations

import contextlib
import functools
import io
import os
import re
import subprocess
import tempfile
from dataclasses import asdict, dataclass

# Max dynamic shared memory per block (bytes) by arch.
SMEM_LIMIT = {80: 163 * 1024, 86: 99 * 1024, 89: 99 * 1024, 90: 227 * 1024}
DTYPE_NAME = {"fp16": "*fp16", "bf16": "*bf16"}


@dataclass(frozen=True)
class ResourceReport:
    arch: int
    head_dim: int
    dtype: str
    causal: bool
    config: dict
    registers: int
    spill_bytes: int
    stack_bytes: int
    shared_bytes: int
    smem_limit: int
    error: str = ""
    # ptxas's code and reason when it serialises the wgmmas (correct, but the GEMM/softmax
    # overlap the Hopper kernels are built on is gone), else "": ``wgmma_serialization``.
    wgmma_serialized: str = ""
    # The integer arguments the compile was specialised on, as at a launch (None: generic).
    launch: dict | None = None

    @property
    def ok(self) -> bool:
        return (not self.error and self.spill_bytes == 0 and self.shared_bytes <= self.smem_limit
                and not self.wgmma_serialized)

    def problems(self) -> list[str]:
        out = []
        if self.error:
            out.append(self.error)
        if self.spill_bytes:
            out.append(f"{self.spill_bytes} B spilled" + (" (specialised as a launch)" if self.launch else ""))
        if self.shared_bytes > self.smem_limit:
            out.append(f"shared {self.shared_bytes} B > {self.smem_limit} B limit")
        if self.wgmma_serialized:
            out.append(f"ptxas serialised wgmma ({self.wgmma_serialized})")
        return out

    def as_dict(self) -> dict:
        return {**asdict(self), "ok": self.ok}


def _ptxas() -> str:
    import triton

    return os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "ptxas")


@functools.lru_cache(maxsize=None)
def _raw_jit(kernel_name: str):
    """A compilable JITFunction for a kernel, also when the interpreter wraps it."""
    from triton.runtime.jit import JITFunction

    from ..kernels import triton_fwd

    kernel = getattr(triton_fwd, kernel_name)
    return kernel if isinstance(kernel, JITFunction) else JITFunction(kernel.fn)


def _signature(fn, dtype: str, constexprs: dict) -> dict:
    sig = {}
    for name in fn.arg_names:
        if name in constexprs:
            sig[name] = "constexpr"
        elif name in ("Q", "K", "V", "O"):
            sig[name] = DTYPE_NAME[dtype]
        elif name in ("LSE", "WS_O", "WS_L"):
            sig[name] = "*fp32"
        elif name == "TICKETS":
            sig[name] = "*i32"
        elif name == "qk_scale":
            sig[name] = "fp32"
        else:
            sig[name] = "i32"
    return sig


_ALIGNED = ("Q", "K", "V", "O", "LSE", "WS_O", "WS_L", "TICKETS")
_ALIGNED_STRIDES = re.compile(r"stride_[qkvo][bhmn]$")


def compile_triton_fwd(arch: int, head_dim: int, dtype: str, causal: bool, config,
                       launch: dict | None = None) -> ResourceReport:
    """Compile the portable forward for one target and read its resources.

    ``launch``: integer argument values to specialise on as Triton does at a launch
    (``STANDARD_LAUNCH``); None compiles the generic kernel (strides and pointers are
    aligned in both, as users' tensors are)."""
    return compile_triton_fwd_twins(arch, head_dim, dtype, causal, config, launch)[0]


def compile_triton_fwd_twins(arch: int, head_dim: int, dtype: str, causal: bool, config,
                             launch: dict | None = None, twins: tuple[int, ...] = ()) -> list[ResourceReport]:
    """``compile_triton_fwd``'s report for ``arch``, then one per arch of ``twins``: ptxas for
    that arch on the PTX Triton emitted for ``arch`` (its .target line changed). Only for
    archs whose PTX Triton emits alike (offline.PTX_TWINS; a test holds Triton to it)."""
    return _report(*_triton_source(arch, head_dim, dtype, causal, config, launch), twins)


def _triton_source(arch: int, head_dim: int, dtype: str, causal: bool, config, launch: dict | None = None):
    """(report fields, source, target, options) of the portable forward's compile."""
    from triton.backends.compiler import GPUTarget
    from triton.compiler import ASTSource

    from ..kernels.triton_fwd import kernel_constexprs, uses_pdl

    fn = _raw_jit("_attn_fwd_kernel")
    # As a launch passes them (PDL too; store_lse is a runtime integer Triton never
    # specialises), plus contiguous last dims: the layout users pass.
    constexprs = dict(kernel_constexprs(config, head_dim, causal, uses_pdl(arch, config), arch=arch),
                      stride_qd=1, stride_kd=1, stride_vd=1, stride_od=1)
    ints = _launch_ints(fn, launch)
    constexprs.update({n: 1 for n, v in ints.items() if v == 1})
    index = {name: i for i, name in enumerate(fn.arg_names)}
    aligned = [n for n in fn.arg_names if n in _ALIGNED or _ALIGNED_STRIDES.match(n)]
    aligned += [n for n, v in ints.items() if v != 1 and v % 16 == 0]
    src = ASTSource(
        fn,
        _signature(fn, dtype, constexprs),
        constexprs={(index[k],): v for k, v in constexprs.items()},
        attrs={(index[n],): [["tt.divisibility", 16]] for n in aligned},
    )
    base = dict(arch=arch, head_dim=head_dim, dtype=dtype, causal=causal, config=config.as_dict(),
                smem_limit=SMEM_LIMIT.get(arch, 99 * 1024), launch=launch)
    # On sm_90 Triton lowers tl.dot to wgmma, which ptxas may serialise as in Gluon's kernels.
    return base, src, GPUTarget("cuda", arch, 32), dict(num_warps=config.num_warps, num_stages=config.num_stages)


# The integer arguments of a typical launch (MHA, sequence lengths and head counts that are
# multiples of 16). Triton specialises each launch on its integers: 1 becomes a constant and a
# multiple of 16 carries tt.divisibility=16, so the binary that runs can differ from a generic
# compile. On the H100 the D=64 causal 192x128 build spilled 144 B only when specialised like this.
STANDARD_LAUNCH = {"heads_q": 32, "group": 1, "seq_q": 8192, "seq_k": 8192, "batch_heads": 64, "chunk": 12}


def _launch_ints(fn, launch: dict | None) -> dict:
    """The launch's integers that ``fn`` takes (each kernel names a subset)."""
    return {n: v for n, v in (launch or {}).items() if n in fn.arg_names}


def compile_gluon_fwd(head_dim: int, dtype: str, causal: bool, config, launch: dict | None = None) -> ResourceReport:
    """Compile the Gluon forward for sm_90a (its only target) and read its resources.

    ``launch``: integer argument values to specialise on as Triton does at a launch
    (``STANDARD_LAUNCH`` for the usual one); None compiles the generic kernel.

    Gluon has no interpreter: this is the one check of it that runs without a GPU.
    Under ``TRITON_INTERPRET=1`` Triton's own ``gl.max``/``gl.sum`` are interpreter
    objects that Gluon cannot compile, so the compile then runs in a fresh process
    without it (CPU CI sets the interpreter for the Triton kernels' tests).
    """
    import triton

    if triton.knobs.runtime.interpret:
        return _compile_gluon_elsewhere(head_dim, dtype, causal, config, launch)
    return _report(*_gluon_source(head_dim, dtype, causal, config, launch))[0]


def _gluon_source(head_dim: int, dtype: str, causal: bool, config, launch: dict | None = None):
    """(report fields, source, target, options) of the Gluon forward's compile for sm_90a."""
    from triton.backends.compiler import GPUTarget
    from triton.experimental.gluon import language as gl
    from triton.experimental.gluon._runtime import GluonASTSource

    from ..kernels import gluon_fwd as gf

    ws = config.warp_specialize
    fn = gf.kernel_fn(config)
    num_warps = 4 if ws else config.num_warps  # the warp-specialised default partition is one warpgroup
    constexprs = dict(gf.kernel_constexprs(config, head_dim, causal), num_warps=num_warps)
    gl_dtype = {"fp16": gl.float16, "bf16": gl.bfloat16}[dtype]

    def desc(rows):
        block = [1, 1, rows, gf.padded_head_dim(head_dim)]  # as gluon_fwd._desc builds it
        layout = gl.NVMMASharedLayout.get_default_for(block, gl_dtype)
        return f"tensordesc<{dtype}[{','.join(map(str, block))}],{layout!r}>"

    q_rows = gf.WG_ROWS if ws else config.block_m
    types = {"desc_q": desc(q_rows), "desc_o": desc(q_rows), "desc_k": desc(config.block_n),
             "desc_v": desc(config.block_n), "LSE": "*fp32", "qk_scale": "fp32",
             # stage 1's key-split workspace and tickets (placeholders of these types without a split)
             "PARTS": "*fp32", "TICKETS": "*i32",
             # the dynamic schedule's counter or stream-K's tickets, and stream-K's workspace, or LSE
             # as their placeholder (as gluon_fwd.prepare passes them)
             "counter": "*i32" if gf.dynamic_schedule(config, causal) or gf.stream_k(config, causal) else "*fp32",
             "parts": "*fp32",
             # a causal stream-K launch's plan (causal_plan.table), else LSE
             "plan": "*i32" if causal and gf.stream_k(config, causal) else "*fp32"}
    ints = _launch_ints(fn, launch)
    constexprs.update({n: 1 for n, v in ints.items() if v == 1})
    sig = {n: "constexpr" if n in constexprs else types.get(n, "i32") for n in fn.arg_names}
    index = {n: i for i, n in enumerate(fn.arg_names)}
    aligned = [n for n in ("LSE", "PARTS", "TICKETS", "parts", "plan") if n in index] + [
        n for n, v in ints.items() if v != 1 and v % 16 == 0]
    src = GluonASTSource(fn, sig, constexprs={(index[k],): v for k, v in constexprs.items()},
                         attrs={(index[n],): [["tt.divisibility", 16]] for n in aligned})
    base = dict(arch=90, head_dim=head_dim, dtype=dtype, causal=causal, config=config.as_dict(),
                smem_limit=SMEM_LIMIT[90], launch=launch)
    return base, src, GPUTarget("cuda", 90, 32), dict(num_warps=num_warps, num_stages=config.num_stages)


def compile_binary(family: str, arch: int, head_dim: int, dtype: str, causal: bool, config,
                   launch: dict | None = None):
    """Triton's compiled kernel (PTX, cubin, metadata) of one config, as the reports build it.
    Needs a process where ``TRITON_INTERPRET`` is off (see the module docstring)."""
    if family == "gluon":
        _, src, target, options = _gluon_source(head_dim, dtype, causal, config, launch)
    else:
        _, src, target, options = _triton_source(arch, head_dim, dtype, causal, config, launch)
    return compile_with_ptxas_log(src, target, options)[0]


def _report(base: dict, src, target, options: dict, twins: tuple[int, ...] = ()) -> list[ResourceReport]:
    """Compile ``src`` and read the build's resources, then each twin arch's (see
    ``compile_triton_fwd_twins``); any compiler failure makes the config invalid."""
    bases = [base] + [dict(base, arch=twin, smem_limit=SMEM_LIMIT.get(twin, 99 * 1024)) for twin in twins]
    try:
        compiled, log = compile_with_ptxas_log(src, target, options)
    except Exception as exc:  # noqa: BLE001
        return [ResourceReport(**b, registers=0, spill_bytes=0, stack_bytes=0, shared_bytes=0,
                               error=f"compile failed: {type(exc).__name__}: {str(exc)[:200]}") for b in bases]
    ptx = compiled.asm["ptx"]
    if not log:  # the cubin came from Triton's cache: no ptxas ran
        log = ptxas_log(ptx, target.arch)
    logs = [log] + [ptxas_log(retarget(ptx, twin), twin) for twin in twins]
    return [ResourceReport(**b, **_ptxas_fields(text), shared_bytes=int(compiled.metadata.shared))
            for b, text in zip(bases, logs)]


def retarget(ptx: str, arch: int) -> str:
    """The PTX module with its .target line naming ``arch``."""
    out, n = re.subn(r"^\.target sm_\d+a?", f".target sm_{arch}", ptx, count=1, flags=re.MULTILINE)
    if n != 1:
        raise ValueError("retarget: the PTX has no .target line")
    return out


def compile_with_ptxas_log(src, target, options: dict):
    """``triton.compile``, and what the ``ptxas -v`` that built its cubin said ("" when the
    cubin came from Triton's cache). Triton runs ptxas with -v and prints the log when asked
    to: reading it spares the gate a second ptxas run per compile (a fifth of its time)."""
    import triton

    out = io.StringIO()
    saved = triton.knobs.nvidia.dump_ptxas_log
    triton.knobs.nvidia.dump_ptxas_log = True
    try:
        with contextlib.redirect_stdout(out):
            compiled = triton.compile(src, target=target, options=options)
    finally:
        triton.knobs.nvidia.dump_ptxas_log = saved
    log = out.getvalue()
    return compiled, log if "ptxas info" in log else ""


def without_interpreter(code: str, args: dict):
    """Run ``code`` in a fresh Python without ``TRITON_INTERPRET``, ``args`` as JSON in
    ``sys.argv[1]``; (the JSON of its last stdout line, None) or (None, its stderr tail) when
    it failed. For compiles asked for in a process that interprets."""
    import json
    import sys

    env = {k: v for k, v in os.environ.items() if k != "TRITON_INTERPRET"}
    proc = subprocess.run([sys.executable, "-c", code, json.dumps(args)], env=env, capture_output=True, text=True)
    if proc.returncode:
        return None, proc.stderr.strip()[-400:]
    return json.loads(proc.stdout.strip().splitlines()[-1]), None


def _compile_gluon_elsewhere(head_dim: int, dtype: str, causal: bool, config, launch=None) -> ResourceReport:
    code = ("import json, sys; from flashcore.kernels.gluon_fwd import Config; "
            "from flashcore.profile.resources import compile_gluon_fwd; a = json.loads(sys.argv[1]); "
            "print(json.dumps(compile_gluon_fwd(a['d'], a['dtype'], a['causal'], Config(**a['config']), "
            "a['launch']).as_dict()))")
    fields, err = without_interpreter(code, {"d": head_dim, "dtype": dtype, "causal": causal,
                                             "config": config.as_dict(), "launch": launch})
    if err is not None:
        return ResourceReport(arch=90, head_dim=head_dim, dtype=dtype, causal=causal, config=config.as_dict(),
                              registers=0, spill_bytes=0, stack_bytes=0, shared_bytes=0, smem_limit=SMEM_LIMIT[90],
                              error=f"compile process failed: {err[-300:]}")
    fields.pop("ok", None)
    return ResourceReport(**fields)


def ptxas_usage(ptx: str, arch: int) -> tuple[int, int, int]:
    """(registers, spill store+load bytes, stack frame bytes) from ``ptxas -v``."""
    return parse_ptxas(ptxas_log(ptx, arch))


def _ptxas_fields(log: str) -> dict:
    """A ResourceReport's ptxas fields (registers, spills, stack, wgmma serialisation) from a ``ptxas -v`` log."""
    regs, spills, stack = parse_ptxas(log)
    return dict(registers=regs, spill_bytes=spills, stack_bytes=stack, wgmma_serialized=wgmma_serialization(log))


def ptxas_log(ptx: str, arch: int) -> str:
    """What ``ptxas -v`` says about a PTX module (usage lines and warnings)."""
    gpu = "sm_90a" if arch == 90 else f"sm_{arch}"
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "k.ptx")
        with open(path, "w") as f:
            f.write(ptx)
        proc = subprocess.run(
            [_ptxas(), "-v", f"--gpu-name={gpu}", path, "-o", os.path.join(tmp, "k.cubin")],
            capture_output=True, text=True, check=True,
        )
    return proc.stderr


_SERIALIZED = re.compile(r"\((C\d+)\)[^\n]*wgmma\.mma_async instructions are serialized due to (.*?)"
                         r"(?: in the function '[^']*')?\s*$", re.MULTILINE)


def wgmma_serialization(text: str) -> str:
    """"CODE: reason" of the first wgmma serialisation in a ptxas log, else "".

    Any reason counts: C7512 (too few registers), C7515 (an accumulator written between
    a wgmma and its wait), C7510 (a wgmma in a called function: ptxas does not pipeline
    across a call; a Gluon ``noinline`` consumer reads so, benchmarks/results/
    2026-11-25-h100-one-partition/offline/), and any other code with this message."""
    m = _SERIALIZED.search(text)
    return f"{m.group(1)}: {m.group(2)}" if m else ""


def parse_ptxas(text: str) -> tuple[int, int, int]:
    regs = re.search(r"Used (\d+) registers", text)
    stores = re.search(r"(\d+) bytes spill stores", text)
    loads = re.search(r"(\d+) bytes spill loads", text)
    stack = re.search(r"(\d+) bytes stack frame", text)

    def num(m):
        return int(m.group(1)) if m else 0

    return num(regs), num(stores) + num(loads), num(stack)
