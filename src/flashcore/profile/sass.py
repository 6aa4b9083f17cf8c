"""A compiled kernel's SASS, read for its KV loops: what each iteration issues on its common path.

Register and spill counts say nothing about a loop's shape. The kernel log has needed the
instructions that run when no warp takes its rare branches. Those branches are the lazy
rescale's skipped multiply and the max-free check's redo (v35-v36). Each is a forward branch
on a predicate that a warp vote wrote, so this module excludes any region such a branch skips.
It counts the rest, by opcode.

    flashcore profile --sass --shape 2,16,8192,128 --causal

Counts are static: issue rates, latencies and where ptxas put each instruction decide the
time (v36: a common path 23-33 instructions shorter ran 2-8% slower).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import tempfile
from collections import Counter
from dataclasses import dataclass

_LINE = re.compile(r"^\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;")
_HEX = re.compile(r"0x[0-9a-f]+")


class SassError(RuntimeError):
    """No disassembler, a failed compile or a failed disassembly; the message says which."""


@dataclass(frozen=True)
class Instr:
    addr: int
    text: str

    @property
    def predicate(self) -> str | None:
        """The guarding predicate without its negation ("P0" for "@!P0 BRA ..."), else None."""
        return self.text.split()[0].lstrip("@!") if self.text.startswith("@") else None

    @property
    def opcode(self) -> str:
        """The base opcode: "HGMMA" for "HGMMA.64x128x16.F32.BF16 R24, ...", "BRA" for "@!P0 BRA 0x50"."""
        words = self.text.split()
        return (words[1] if self.predicate else words[0]).split(".")[0]

    @property
    def dest(self) -> str | None:
        """The first operand (the destination of most instructions)."""
        words = self.text.split(None, 2 if self.predicate else 1)
        return words[-1].split(",")[0].strip() if len(words) > (2 if self.predicate else 1) else None

    @property
    def target(self) -> int | None:
        """A branch's target address."""
        if self.opcode != "BRA":
            return None
        found = _HEX.findall(self.text)
        return int(found[-1], 16) if found else None


def parse(sass: str) -> list[Instr]:
    """Every instruction of ``cuobjdump -sass`` text, in address order."""
    out = []
    for line in sass.splitlines():
        m = _LINE.match(line)
        if m:
            out.append(Instr(int(m.group(1), 16), m.group(2)))
    return out


def cuobjdump() -> str:
    """Triton's bundled cuobjdump, else one on PATH."""
    import triton

    bundled = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
    found = bundled if os.path.exists(bundled) else shutil.which("cuobjdump")
    if not found:
        raise SassError("no cuobjdump: neither Triton's bundled one nor one on PATH")
    return found


def disassemble(cubin: bytes) -> str:
    with tempfile.TemporaryDirectory() as tmp:
        path = os.path.join(tmp, "kernel.cubin")
        with open(path, "wb") as f:
            f.write(cubin)
        proc = subprocess.run([cuobjdump(), "-sass", path], capture_output=True, text=True)
    if proc.returncode:
        raise SassError(f"cuobjdump failed: {proc.stderr.strip()[-300:]}")
    return proc.stdout


@dataclass(frozen=True)
class Loop:
    """One loop, ``start`` to ``end`` (its backward branch): ``common`` instructions outside
    the regions that warp-uniform branches skip (``skipped``, as (branch, target) pairs),
    and their opcodes."""

    start: int
    end: int
    instructions: int
    common: int
    skipped: tuple[tuple[int, int], ...]
    opcodes: dict[str, int]

    def as_dict(self) -> dict:
        return {"start": hex(self.start), "end": hex(self.end), "instructions": self.instructions,
                "common": self.common, "skipped": [[hex(a), hex(b)] for a, b in self.skipped],
                "opcodes": self.opcodes}


def _voted(body: list[Instr], i: int) -> bool:
    """Whether branch i's predicate was last written by a warp vote."""
    pred = body[i].predicate
    for ins in reversed(body[:i]):
        if pred and ins.dest == pred:
            return ins.opcode in ("VOTE", "VOTEU")
    return False


def _outermost(regions: list[tuple[int, int]]) -> list[tuple[int, int]]:
    return [r for r in regions if not any(o != r and o[0] <= r[0] and r[1] <= o[1] for o in regions)]


# Tensor-core opcodes: wgmma on sm_90, mma.sync before it.
TENSOR_OPS = ("HGMMA", "HMMA")


def loops(instrs: list[Instr], contains: tuple[str, ...] = TENSOR_OPS) -> list[Loop]:
    """The innermost loops whose bodies hold a ``contains`` instruction (the KV loops of the
    attention kernels), in address order."""
    spans = [(ins.target, ins.addr) for ins in instrs if ins.target is not None and ins.target < ins.addr]
    # ptxas puts the mbarrier waits' retry blocks after the kernel's EXIT; their jumps back into
    # a loop are backward branches too, but their spans hold the EXIT.
    spans = [s for s in spans if not any(i.opcode == "EXIT" for i in instrs if s[0] <= i.addr <= s[1])]
    spans = [s for s in spans if any(i.opcode in contains for i in instrs if s[0] <= i.addr <= s[1])]
    spans = [s for s in spans if not any(o != s and s[0] <= o[0] and o[1] <= s[1] for o in spans)]
    out = []
    for start, end in sorted(set(spans)):
        body = [i for i in instrs if start <= i.addr <= end]
        skips = _outermost([(ins.addr, ins.target) for k, ins in enumerate(body)
                            if ins.target is not None and ins.addr < ins.target <= end and _voted(body, k)])
        common = [i for i in body if not any(a < i.addr < b for a, b in skips)]
        counts = Counter(i.opcode for i in common)
        out.append(Loop(start, end, len(body), len(common), tuple(skips), dict(counts.most_common())))
    return out


def code_size(instrs: list[Instr], found: list[Loop]) -> dict:
    """The binary's instructions, and how many sit outside its KV loops: the setup, the
    producer and each item's code between its loops. On the three-consumer Gluon builds the
    per-item code moved a config's time by ~5% at D=16-64 (docs/performance.md, v67), so it
    is worth watching beside the loops."""
    in_loops = sum(lp.instructions for lp in found)
    return {"total": len(instrs), "in_kv_loops": in_loops, "outside_kv_loops": len(instrs) - in_loops}


def report(family: str, arch: int, head_dim: int, dtype: str, causal: bool, config) -> dict:
    """Compile ``config`` offline and read its KV loops. Under ``TRITON_INTERPRET`` the compile
    runs in a fresh process without it (``resources``' module docstring says why)."""
    import triton

    if triton.knobs.runtime.interpret:
        return _report_elsewhere(family, arch, head_dim, dtype, causal, config)
    from .resources import compile_binary

    try:
        compiled = compile_binary(family, arch, head_dim, dtype, causal, config)
    except Exception as exc:  # noqa: BLE001 - any compiler failure is the report's answer
        raise SassError(f"compile failed: {type(exc).__name__}: {str(exc)[:300]}") from exc
    instrs = parse(disassemble(compiled.asm["cubin"]))
    found = loops(instrs)
    return {"family": family, "arch": arch, "head_dim": head_dim, "dtype": dtype, "causal": causal,
            "config": config.as_dict(), "loops": [lp.as_dict() for lp in found],
            "instructions": code_size(instrs, found)}


def _report_elsewhere(family, arch, head_dim, dtype, causal, config) -> dict:
    from .resources import without_interpreter

    code = ("import json, sys; from flashcore.dispatch import KERNELS; from flashcore.profile.sass import report; "
            "a = json.loads(sys.argv[1]); c = KERNELS[a['family']].Config(**a['config']); "
            "print(json.dumps(report(a['family'], a['arch'], a['d'], a['dtype'], a['causal'], c)))")
    result, err = without_interpreter(code, {"family": family, "arch": arch, "d": head_dim, "dtype": dtype,
                                             "causal": causal, "config": config.as_dict()})
    if err is not None:
        raise SassError(f"the compile process failed: {err}")
    return result
