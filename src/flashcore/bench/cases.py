"""Attention problems (cases), the named presets that bench, tune and profile share,
``--shape`` parsing and the FLOP count.

FLOPs (see :func:`flops`): two matmuls (QK^T and PV), each a multiply-add per visible
(query, key) pair and head-dim element, so ``4 * B * Hq * D * pairs``. Without a mask
``pairs = Sq * Sk``. With flashcore's bottom-right causal mask query ``i`` sees keys
``0 .. i + Sk - Sq``, so row ``i`` has ``clamp(i + Sk - Sq + 1, 0, Sk)`` visible keys.
Summing over rows with ``m = min(Sq, Sk)``: ``pairs = m * (2 * Sk - m + 1) / 2``; for
``Sq <= Sk`` that is ``Sq * (2 * Sk - Sq + 1) / 2`` and for ``Sq > Sk`` it is
``Sk * (Sk + 1) / 2`` (the first ``Sq - Sk`` rows see no key and count 0).
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import torch

DTYPES = {"fp16": torch.float16, "bf16": torch.bfloat16}
DTYPE_NAMES = {v: k for k, v in DTYPES.items()}


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

    @property
    def dtype_name(self) -> str:
        return DTYPE_NAMES.get(self.dtype, str(self.dtype).replace("torch.", ""))

    def label(self) -> str:
        return (f"B{self.batch} Hq{self.heads_q} Hkv{self.hkv} Sq{self.seq_q} Sk{self.sk} "
                f"D{self.head_dim} {'causal' if self.causal else 'full'} {self.dtype_name} {self.layout}")

    def short_label(self) -> str:
        """Compact label for tables: heads as Hq/Hkv only when they differ, Sk only when != Sq."""
        heads = f"H{self.heads_q}" if self.hkv == self.heads_q else f"H{self.heads_q}/{self.hkv}"
        seq = f"S{self.seq_q}" if self.sk == self.seq_q else f"S{self.seq_q}/{self.sk}"
        return f"B{self.batch} {heads} {seq} D{self.head_dim}{' causal' if self.causal else ''}"


def visible_pairs(seq_q: int, seq_k: int, causal: bool) -> int:
    """(query, key) pairs the mask leaves visible; bottom-right causal alignment."""
    if not causal:
        return seq_q * seq_k
    m = min(seq_q, seq_k)
    return m * (2 * seq_k - m + 1) // 2


def flops(case: Case) -> int:
    """Useful forward FLOPs: 4 * B * Hq * D * visible pairs (module docstring)."""
    return 4 * case.batch * case.heads_q * case.head_dim * visible_pairs(case.seq_q, case.sk, case.causal)


def io_bytes(case: Case) -> int:
    """Bytes of q, k, v and the output: what a set of inputs occupies in memory."""
    q_and_out = 2 * case.batch * case.heads_q * case.seq_q * case.head_dim
    kv = 2 * case.batch * case.hkv * case.sk * case.head_dim
    return (q_and_out + kv) * case.dtype.itemsize


# ----------------------------------------------------------------------------------
# Presets. Each builder takes the dtype (None: the preset's own default).
# ----------------------------------------------------------------------------------
TOKENS = 16384  # B * S for the standard and gqa presets
CAUSAL = (False, True)


def _seed(dtype):
    dtype = dtype or torch.float16
    return [Case(b, 8, 512, 64, causal=c, dtype=dtype) for b in (1, 2) for c in CAUSAL]


def _standard(dtype):
    dtype = dtype or torch.bfloat16
    seqs = (512, 1024, 2048, 4096, 8192, 16384)
    # H * D = 2048: D=64 with H=32, D=128 with H=16.
    return [Case(TOKENS // s, h, s, d, causal=c, dtype=dtype)
            for h, d in ((32, 64), (16, 128)) for c in CAUSAL for s in seqs]


def _gqa(dtype):
    dtype = dtype or torch.bfloat16
    seqs = (1024, 2048, 4096, 8192, 16384)
    return [Case(TOKENS // s, 32, s, 128, heads_kv=8, causal=c, dtype=dtype) for c in CAUSAL for s in seqs]


def _odd(dtype):
    dtype = dtype or torch.bfloat16
    return [Case(2, 8, s, d, causal=c, dtype=dtype)
            for d in (32, 80, 96, 256) for c in CAUSAL for s in (1, 17, 1000, 3000)]


def _dims(dtype):
    # Head dims other than 64/128 at the standard preset's scale (B * S = 16k): where auto
    # ran the portable kernel at 0.22-0.61x of cuDNN until the Gluon kernel took D 40-256
    # (kernel log v42), which the small odd preset never showed.
    dtype = dtype or torch.bfloat16
    return [Case(TOKENS // s, h, s, d, causal=c, dtype=dtype)
            for h, d in ((64, 32), (32, 48), (24, 80), (16, 96), (8, 256)) for c in CAUSAL for s in (1024, 4096)]


def _tiny(dtype):
    # Small enough for Triton's CPU interpreter: a few seconds for the whole preset.
    dtype = dtype or torch.float16
    return [
        Case(1, 2, 64, 32, dtype=dtype),
        Case(1, 2, 64, 32, causal=True, dtype=dtype),
        Case(2, 4, 48, 16, heads_kv=2, dtype=dtype),
        Case(1, 2, 17, 32, seq_k=40, causal=True, dtype=dtype),
        Case(1, 2, 40, 32, seq_k=17, causal=True, dtype=dtype),
    ]


PRESETS = {"seed": _seed, "standard": _standard, "gqa": _gqa, "odd": _odd, "dims": _dims, "tiny": _tiny}


def preset(name: str, dtype: torch.dtype | None = None) -> list[Case]:
    """The cases of a named preset; ``dtype`` overrides the preset's default dtype."""
    if name not in PRESETS:
        raise ValueError(f"unknown preset {name!r}; expected one of {', '.join(PRESETS)}")
    return PRESETS[name](dtype)


SHAPE_FORMAT = "B,Hq,S,D[,Hkv[,Sk]]"


def parse_shape(text: str, dtype: torch.dtype = torch.bfloat16, causal: bool = False) -> Case:
    """Parse ``--shape B,Hq,S,D[,Hkv[,Sk]]`` into a Case; ValueError says what is wrong."""
    parts = [p.strip() for p in text.split(",")]
    if not 4 <= len(parts) <= 6:
        raise ValueError(f"--shape expects {SHAPE_FORMAT} (4 to 6 integers), got {text!r}; e.g. 2,16,1024,128")
    try:
        values = [int(p) for p in parts]
    except ValueError:
        raise ValueError(f"--shape expects integers in {SHAPE_FORMAT}, got {text!r}; e.g. 2,16,1024,128") from None
    names = SHAPE_FORMAT.replace("[", "").replace("]", "").split(",")
    for name, value in zip(names, values):
        low = 0 if name in ("S", "Sk") else 1
        if value < low:
            raise ValueError(f"--shape {text!r}: {name} must be >= {low}, got {value}")
    batch, heads_q, seq_q, head_dim = values[:4]
    heads_kv = values[4] if len(values) > 4 else None
    if heads_kv is not None and heads_q % heads_kv:
        raise ValueError(f"--shape {text!r}: Hq ({heads_q}) must be a multiple of Hkv ({heads_kv}) for GQA/MQA")
    seq_k = values[5] if len(values) > 5 else None
    return Case(batch, heads_q, seq_q, head_dim, heads_kv=heads_kv, seq_k=seq_k, causal=causal, dtype=dtype)


def filter_causal(cases: list[Case], which: str) -> list[Case]:
    """Keep full and causal cases ("both"), or only one kind ("on" / "off")."""
    if which == "both":
        return cases
    want = which == "on"
    return [c for c in cases if c.causal == want]


def both_causal(case: Case) -> list[Case]:
    """A custom shape runs unmasked and causal, like the presets."""
    return [replace(case, causal=False), replace(case, causal=True)]
