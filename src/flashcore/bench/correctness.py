"""The correctness rule, shared by tests, bench, tune and profile.

- Inputs are fresh and random: q, k and v drawn independently from N(0, 1) (times
  a magnitude), never equal to each other, never zeros.
- The high-precision reference is :func:`flashcore.reference.attention_reference`
  in fp64 (fp32 on big GPU shapes).
- PyTorch's own error is the same reference computed *in the input dtype*. A kernel
  may be at most ``FACTOR`` times worse, plus a small epsilon, in both max-abs and
  relative (Frobenius) error. NaN where the reference is finite never passes.
"""

from __future__ import annotations

import math
from dataclasses import asdict, dataclass

import torch

from ..reference import attention_reference
from .cases import Case

FACTOR = 2.0
EPS_ABS = 1e-5
EPS_REL = 1e-5


def make_inputs(case: Case, device="cpu", seed: int = 0, magnitude: float = 1.0):
    """Fresh independent N(0, magnitude^2) q, k, v for a case."""
    gen = torch.Generator(device="cpu").manual_seed(seed)

    def draw(heads, seq):
        if case.layout == "bshd":
            shape = (case.batch, seq, heads, case.head_dim)
        else:
            shape = (case.batch, heads, seq, case.head_dim)
        t = (torch.randn(shape, generator=gen, dtype=torch.float32) * magnitude).to(case.dtype)
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
    ref, ref_lse = attention_reference(q, k, v, causal=causal, scale=scale, return_lse=True, compute_dtype=ref_dtype)
    own, own_lse = attention_reference(q, k, v, causal=causal, scale=scale, return_lse=True, compute_dtype=q.dtype)
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
