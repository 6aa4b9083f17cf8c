"""Attention problems (cases) and the named presets that bench, tune and profile share."""

from __future__ import annotations

from dataclasses import dataclass

import torch


@dataclass(frozen=True)
class Case:
    """One attention problem. ``layout`` "bshd" makes q/k/v transposed views of (B, S, H, D)."""

    batch: int
    heads_q: int
    seq_q: int
    head_dim: int
    heads_kv: int | None = None
    seq_k: int | None = None
    causal: bool = False
    dtype: torch.dtype = torch.bfloat16
    layout: str = "bhsd"

    @property
    def hkv(self) -> int:
        return self.heads_q if self.heads_kv is None else self.heads_kv

    @property
    def sk(self) -> int:
        return self.seq_q if self.seq_k is None else self.seq_k

    def label(self) -> str:
        dt = {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(self.dtype, str(self.dtype))
        return (f"B{self.batch} Hq{self.heads_q} Hkv{self.hkv} Sq{self.seq_q} Sk{self.sk} "
                f"D{self.head_dim} {'causal' if self.causal else 'full'} {dt} {self.layout}")
