"""A PTX pass for the Gluon kernels: drop the partition barriers that Triton puts in front
of single-thread mbarrier operations where the kernel has marked them as redundant.

Triton 3.6 lowers ``mbarrier.arrive`` to one thread's arrive behind a barrier of the whole
partition (``bar.sync id, 128`` in a consumer warpgroup), and its membar pass puts another
before the K ring's wait at the top of the KV loop: three per KV tile in every consumer
(four per tile in stage 1, around its TMA refills). None of them orders anything there:

* A consumer releases a ring slot after its own ``wgmma.wait_group``. A warpgroup MMA is
  one operation of all four warps, so once one thread has seen it complete, every warp's
  reads of the slot are done. CUTLASS's ``consumer_release`` arrives from one thread
  without a barrier for the same reason.
* Stage 1 with one warpgroup refills its own ring: the refilling thread's GEMM waits cover
  every warp's reads of the slot, as above, so the CTA barrier before the refill and the
  ones Triton puts before its ``expect`` and TMA copy order nothing either.
* An mbarrier wait needs no rendezvous: each warp waits for itself.

A ping-pong turn is not among them: passed by warp 0 alone, it let a warp still in its
softmax be lapped on the turn barrier's parity and hang (``gluon_fwd._pass_turn``).

Gluon cannot issue an arrive without the barrier (it exposes no shared-memory address to
inline PTX), so the kernel marks each such operation with an empty inline-asm comment,
``MARK`` (``gluon_fwd._unsynced``), and this pass, run between Triton's PTX and ptxas,
deletes the first ``bar.sync`` that follows a mark when nothing but register arithmetic
separates mark, barrier and the mbarrier operation or TMA copy. Anything else in between
(a shared or global access, another barrier, a branch, a wgmma) leaves the barrier in
place, so an unexpected PTX shape costs speed, never correctness.
"""

from __future__ import annotations

import re

from triton import knobs

# Triton's cache key covers the kernel's source and constexprs, not this pass: the mark
# (a constexpr of the kernel) carries the pass's version, so a change here recompiles.
PASS_VERSION = 2
MARK = f"flashcore:unsynced:v{PASS_VERSION}"

_BARRIER = re.compile(r"^\s*(bar|barrier)\.sync\s[^;]*;\s*$")
_ASYNC_OP = re.compile(r"^\s*(@!?%p\d+\s+)?(mbarrier\.(arrive|try_wait)|cp\.async\.bulk\.tensor)\S*\s")
# Lines that neither touch memory nor synchronise: debug info, inline-asm scaffolding, and
# register arithmetic (the mbarrier's address is computed just before it; a TMA copy elects
# its issuing lane).
_TRIVIA = re.compile(r"^\s*($|//|\.loc\s|\$L__tmp\d+:|\{\s*$|\}\s*$|\.reg\s|waitLoop:)")
_ARITHMETIC = re.compile(r"^\s*(add|sub|mul|mad|shl|shr|and|or|xor|not|mov|cvt|selp|setp|bfe|bfi|min|max|neg"
                         r"|prmt|elect)(\.[a-z0-9]+)*\s")


def _skippable(line: str) -> bool:
    return bool(_TRIVIA.match(line) or _ARITHMETIC.match(line))


def _marked_barrier(lines: list[str], start: int) -> int | None:
    """Index of the barrier to drop for the mark on line ``start``, or None."""
    i = start + 1
    while i < len(lines) and _skippable(lines[i]):
        i += 1
    if i == len(lines) or not _BARRIER.match(lines[i]):
        return None
    j = i + 1
    while j < len(lines) and _skippable(lines[j]):
        j += 1
    return i if j < len(lines) and _ASYNC_OP.match(lines[j]) else None


def drop_marked_barriers(ptx: str) -> tuple[str, int, int]:
    """(ptx without the marked barriers, marks, barriers dropped)."""
    if MARK not in ptx:
        return ptx, 0, 0
    lines = ptx.split("\n")
    marks = [i for i, line in enumerate(lines) if MARK in line]
    drop = {b for b in (_marked_barrier(lines, i) for i in marks) if b is not None}
    return "\n".join(line for i, line in enumerate(lines) if i not in drop), len(marks), len(drop)


def _hook(previous):
    def hook(backend, stages, options, language, capability):
        if previous is not None:
            previous(backend, stages, options, language, capability)
        make_ptx = stages.get("ptx")
        if make_ptx is None:
            return

        def ptx(src, metadata):
            return drop_marked_barriers(make_ptx(src, metadata))[0]

        stages["ptx"] = ptx

    hook.flashcore_ptx_sync = True
    return hook


def install() -> None:
    """Run the pass in every Triton compile of this process (after any hook already set;
    PTX without a mark passes through untouched). Idempotent."""
    current = knobs.runtime.add_stages_inspection_hook
    if not getattr(current, "flashcore_ptx_sync", False):
        knobs.runtime.add_stages_inspection_hook = _hook(current)
