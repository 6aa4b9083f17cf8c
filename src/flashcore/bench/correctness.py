"""The correctness rule, shared by tests, bench, tune and profile.

- Inputs are fresh and random: q, k and v drawn independently from N(0, 1) (times
  a magnitude), never equal to each other, never zeros.
- The high-precision reference is :func:`flashcore.reference.attention_reference`
  in fp64 (fp32 on big GPU shapes).
- PyTorch's own error is the same reference computed *in the input dtype*. A kernel
  may be at most ``FACTOR`` times worse, plus a small epsilon, in both max-abs and
  relative (Frobenius) error. NaN where the reference is finite never passes.

:func:`check_provider` applies the rule KernelBench-style: ``sets`` fresh input sets
(the last one scaled x10), the output poisoned with NaN before every run, verdict
``correct`` only when every set passes. Poisoning for providers that allocate their
own output: a NaN tensor of the output's size is allocated and freed just before the
call, so that PyTorch's CUDA caching allocator hands that same block to the
provider's output; an output element the kernel forgets to write then reads NaN
instead of a plausible stale value. (Best effort: a provider that allocates
something else of that size first gets the block instead. On CPU the allocator does
not cache, so poisoning there proves nothing.) The references for a case are
computed once per set and shared by all providers (:class:`ReferenceCache`).
"""

from __future__ import annotations

import contextlib
import math
from dataclasses import asdict, dataclass, field

import torch

from ..reference import attention_reference
from .cases import Case

FACTOR = 2.0
EPS_ABS = 1e-5
EPS_REL = 1e-5


def make_inputs(case: Case, device="cpu", seed: int = 0, magnitude: float = 1.0, gen_device=None):
    """Fresh independent N(0, magnitude^2) q, k, v for a case.

    The generator runs on the CPU (the same numbers on every machine) unless
    ``gen_device`` names another device; the bench draws on the GPU, because drawing
    the 16k-token shapes on the CPU takes seconds per set.
    """
    gen = torch.Generator(device=gen_device or "cpu").manual_seed(seed)

    def draw(heads, seq):
        if case.layout == "bshd":
            shape = (case.batch, seq, heads, case.head_dim)
        else:
            shape = (case.batch, heads, seq, case.head_dim)
        t = torch.randn(shape, generator=gen, dtype=torch.float32, device=gen.device)
        t = (t * magnitude).to(case.dtype)
        t = t.to(device)
        return t.transpose(1, 2) if case.layout == "bshd" else t

    return draw(case.heads_q, case.seq_q), draw(case.hkv, case.sk), draw(case.hkv, case.sk)


def poisoned_like(t: torch.Tensor) -> torch.Tensor:
    return torch.full_like(t, float("nan"))


@dataclass(frozen=True)
class ErrorStats:
    max_abs: float
    rel: float
    nan: bool


def error_stats(x: torch.Tensor, ref: torch.Tensor) -> ErrorStats:
    """Max-abs and relative Frobenius error over entries where ``ref`` is finite."""
    finite = torch.isfinite(ref)
    xd, rd = x.double()[finite], ref.double()[finite]
    if xd.numel() == 0:
        return ErrorStats(0.0, 0.0, False)
    diff = xd - rd
    nan = bool(torch.isnan(xd).any())
    max_abs = float(diff.abs().max()) if not nan else math.inf
    rel = float(diff.norm() / rd.norm().clamp_min(1e-30)) if not nan else math.inf
    return ErrorStats(max_abs, rel, nan)


@dataclass(frozen=True)
class Verdict:
    ok: bool
    max_abs_err: float
    rel_err: float
    budget_abs: float
    budget_rel: float
    reason: str = ""

    def as_dict(self) -> dict:
        return asdict(self)


def _within(ours: ErrorStats, torch_own: ErrorStats) -> tuple[bool, float, float]:
    budget_abs = FACTOR * torch_own.max_abs + EPS_ABS
    budget_rel = FACTOR * torch_own.rel + EPS_REL
    ok = not ours.nan and ours.max_abs <= budget_abs and ours.rel <= budget_rel
    return ok, budget_abs, budget_rel


def judge(out, q, k, v, *, causal: bool, scale: float | None = None, lse=None,
          ref_dtype: torch.dtype = torch.float64) -> Verdict:
    """Compare a kernel's ``out`` (and optionally ``lse``) with the rule above."""
    with highest_precision():
        ref, ref_lse = exact_reference(q, k, v, causal=causal, scale=scale, dtype=ref_dtype)
        own, own_lse = attention_reference(q, k, v, causal=causal, scale=scale, return_lse=True, compute_dtype=q.dtype)
    return judge_against(out, ref, own, lse=lse, ref_lse=ref_lse, own_lse=own_lse)


def exact_reference(q, k, v, *, causal: bool, scale: float | None = None, dtype: torch.dtype = torch.float64):
    """(out, lse) computed *and returned* in ``dtype``: not rounded back to the input dtype,
    so both the kernel's and PyTorch's own rounding count as error against it."""
    return attention_reference(q.to(dtype), k.to(dtype), v.to(dtype), causal=causal, scale=scale, return_lse=True)


def judge_against(out, ref, own, *, lse=None, ref_lse=None, own_lse=None) -> Verdict:
    """The rule with precomputed references: ``ref`` high precision, ``own`` PyTorch's
    computation in the input dtype (see :func:`judge`)."""
    if out.shape != ref.shape:
        return Verdict(False, math.inf, math.inf, 0.0, 0.0, f"shape {tuple(out.shape)} != {tuple(ref.shape)}")
    ours = error_stats(out, ref)
    ok, budget_abs, budget_rel = _within(ours, error_stats(own, ref))
    reason = "" if ok else ("NaN in output" if ours.nan else "error over budget")
    if ok and lse is not None:
        ok, reason = _judge_lse(lse, ref_lse, own_lse)
    return Verdict(ok, ours.max_abs, ours.rel, budget_abs, budget_rel, reason)


def _judge_lse(lse, ref_lse, own_lse) -> tuple[bool, str]:
    if lse.shape != ref_lse.shape:
        return False, f"lse shape {tuple(lse.shape)} != {tuple(ref_lse.shape)}"
    if not torch.equal(torch.isneginf(lse), torch.isneginf(ref_lse)):
        return False, "lse -inf rows differ from the reference"
    ok, _, _ = _within(error_stats(lse, ref_lse), error_stats(own_lse, ref_lse))
    return ok, "" if ok else "lse error over budget"


@contextlib.contextmanager
def highest_precision():
    """fp32 matmuls in full fp32 (no TF32) while references are computed."""
    previous = torch.get_float32_matmul_precision()
    torch.set_float32_matmul_precision("highest")
    try:
        yield
    finally:
        torch.set_float32_matmul_precision(previous)


# ----------------------------------------------------------------------------------
# check_provider: the rule applied to a Provider over fresh input sets
# ----------------------------------------------------------------------------------
SETS = 5
LARGE_MAGNITUDE = 10.0
FP64_REFERENCE_MAX_SCORES = 2**24  # score elements up to which the GPU reference runs in fp64


def set_magnitude(index: int, sets: int) -> float:
    """The last of several sets is scaled x10 (peaky softmax, large scores)."""
    return LARGE_MAGNITUDE if sets > 1 and index == sets - 1 else 1.0


def reference_dtype(case: Case, device) -> torch.dtype:
    """fp64 on CPU and for small GPU shapes; fp32 on big GPU shapes (fp64 would take minutes)."""
    scores = case.batch * case.heads_q * case.seq_q * case.sk
    if torch.device(device).type == "cpu" or scores <= FP64_REFERENCE_MAX_SCORES:
        return torch.float64
    return torch.float32


@dataclass
class InputSet:
    q: torch.Tensor
    k: torch.Tensor
    v: torch.Tensor
    ref: torch.Tensor
    own: torch.Tensor
    magnitude: float


class ReferenceCache:
    """Input sets and their references for the current case, shared by all providers.

    Holds one case at a time: asking for another case drops the previous one.
    """

    def __init__(self, device="cpu", seed: int = 0):
        self.device = torch.device(device)
        self.seed = seed
        self.case: Case | None = None
        self.sets: dict[tuple[int, int], InputSet] = {}

    def get(self, case: Case, index: int, sets: int) -> InputSet:
        if case != self.case:
            self.case, self.sets = case, {}
        key = (index, sets)
        if key not in self.sets:
            self.sets[key] = self._build(case, index, sets)
        return self.sets[key]

    def _build(self, case: Case, index: int, sets: int) -> InputSet:
        magnitude = set_magnitude(index, sets)
        gen_device = self.device if self.device.type == "cuda" else None
        q, k, v = make_inputs(case, self.device, seed=self.seed * 1000 + index, magnitude=magnitude,
                              gen_device=gen_device)
        with highest_precision():
            ref, _ = exact_reference(q, k, v, causal=case.causal, dtype=reference_dtype(case, self.device))
            own = attention_reference(q, k, v, causal=case.causal, compute_dtype=q.dtype)
        return InputSet(q, k, v, ref, own, magnitude)


@dataclass(frozen=True)
class CheckResult:
    """Worst errors over all sets; ``correct`` only when every set passed."""

    correct: bool
    max_abs_err: float
    rel_err: float
    sets: int
    reason: str = ""
    verdicts: tuple = field(default=(), repr=False)


def poison_allocator(case: Case, device) -> None:
    """Allocate a NaN tensor of the output's size and free it (module docstring)."""
    shape = (case.batch, case.heads_q, case.seq_q, case.head_dim)
    poison = torch.full(shape, float("nan"), dtype=case.dtype, device=device)
    del poison


def check_provider(provider, case: Case, device="cpu", sets: int = SETS, *,
                   cache: ReferenceCache | None = None, seed: int = 0) -> CheckResult:
    """Run ``provider`` on ``sets`` fresh input sets and judge each output.

    Exceptions from the provider propagate: the caller decides how to report them.
    """
    if sets < 1:
        raise ValueError(f"check_provider: sets must be >= 1, got {sets}")
    cache = cache or ReferenceCache(device, seed)
    verdicts = []
    with torch.no_grad():
        for index in range(sets):
            data = cache.get(case, index, sets)
            provider.prepare(case, data.q, data.k, data.v)
            poison_allocator(case, device)
            out = provider.run()
            verdicts.append(judge_against(out, data.ref, data.own))
            del out
    return _summarize(verdicts)


def _summarize(verdicts: list[Verdict]) -> CheckResult:
    failed = [(i, v) for i, v in enumerate(verdicts) if not v.ok]
    reason = ""
    if failed:
        i, v = failed[0]
        reason = f"set {i}: {v.reason} (max abs {v.max_abs_err:.3g} vs budget {v.budget_abs:.3g}, " \
                 f"rel {v.rel_err:.3g} vs {v.budget_rel:.3g})"
    return CheckResult(
        correct=not failed,
        max_abs_err=max(v.max_abs_err for v in verdicts),
        rel_err=max(v.rel_err for v in verdicts),
        sets=len(verdicts),
        reason=reason,
        verdicts=tuple(verdicts),
    )
