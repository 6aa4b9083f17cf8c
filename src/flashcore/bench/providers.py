"""Providers: one small adapter per attention implementation, behind one interface.

bench, tune and profile only ever talk to a :class:`Provider`:

- ``name``;
- ``supports(case)`` returns ``None`` when it can run the case, else the reason;
- ``prepare(case, q, k, v)`` takes BHSD inputs and does any untimed set-up
  (layout changes, handles, compilation warm-up is the timer's job);
- ``run()`` computes once on the prepared inputs and returns the output as a
  (B, Hq, Sq, D) tensor (a view is fine).
"""

from __future__ import annotations

import torch

from .. import api
from ..kernels.triton_fwd import INTERPRET
from .cases import Case


class Provider:
    name: str = "?"

    def supports(self, case: Case) -> str | None:
        return None

    def prepare(self, case: Case, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        self.case, self.q, self.k, self.v = case, q, k, v

    def run(self) -> torch.Tensor:
        raise NotImplementedError


class FlashcoreProvider(Provider):
    """``flashcore.attention`` with a given backend ("auto" is what users get)."""

    def __init__(self, backend: str = "auto"):
        self.backend = backend
        self.name = "flashcore" if backend == "auto" else f"flashcore-{backend}"

    def supports(self, case: Case) -> str | None:
        if self.backend == "triton" and not (torch.cuda.is_available() or INTERPRET):
            return "needs CUDA or TRITON_INTERPRET=1"
        return None

    def run(self) -> torch.Tensor:
        return api.attention(self.q, self.k, self.v, causal=self.case.causal, backend=self.backend)
