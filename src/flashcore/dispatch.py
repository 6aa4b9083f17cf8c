"""Pick the (backend, config) for a call.

``auto`` resolves by device: CUDA tensors go to the fastest correct kernel; CPU
tensors go to the reference unless Triton's interpreter is on. Configs come from
the tuned table for the GPU's arch (data, ``tuned/sm<arch>.json``) when it has the
key, and from each kernel's heuristic otherwise. Everything here is cached: the
hot path does no I/O after the first call.
"""

from __future__ import annotations

import functools
import inspect
import json
from importlib import resources

import torch

from .kernels import cute_fwd, gluon_fwd, hopper_fwd, triton_fwd
from .kernels.launch import device_arch, device_facts
from .switches import Switch

# Fused backends and their kernel modules (each: Config, heuristic_config, forward).
# "cute" needs the flashcore[hopper] extra; auto picks it only where it measured ahead
# (_cluster_split_wins).
KERNELS = {"triton": triton_fwd, "hopper": hopper_fwd, "gluon": gluon_fwd, "cute": cute_fwd}
# sm_90 paths in order of preference where they apply (see kernel_for).
HOPPER_PATHS = ("gluon", "hopper")


def resolve_backend(backend: str, device: torch.device) -> str:
    """``auto`` by device: a fused kernel on CUDA (or under the interpreter), else the reference.

    Which fused kernel runs is decided per call by :func:`kernel_for`.
    """
    if backend != "auto":
        return backend
    if device.type == "cuda" or (device.type == "cpu" and triton_fwd.INTERPRET):
        return "auto"
    return "reference"


def kernel_for(backend: str, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool = False) -> str:
    """The fused kernel for a call: ``auto`` takes the Hopper path wherever it applies."""
    if backend != "auto":
        return backend
    if q.device.type != "cuda":
        return "triton"
    arch = arch_of(q.device)
    batch, heads_q, seq_q, _ = q.shape
    if _packs_gqa(arch, q, k):
        return "triton"
    if _cluster_split_wins(arch, q, k, v, causal):
        return "cute"
    if triton_fwd.small_grid(seq_q, batch * heads_q):
        # Under one wave: Gluon's 64-row blocks (keys split across CTAs for long rows,
        # between warpgroups for long causal ones), unless the call is too short for one
        # such block and the portable kernel splits its keys (decode: B*H=8 Sq=1 Sk=8k
        # D=128 19.6 us against Gluon's 23.6 at 8 CTAs per block; from Sq=64 Gluon leads,
        # 23.7 against 28.3; benchmarks/results/2026-11-23-h100-kv-ctas/). Seed shape, graph
        # mode: 6.3-7.1 us against the portable kernel's 7.5-8.6
        # (benchmarks/results/2026-11-23-h100-small-grids/). GQA rows that do not pack
        # (group * Sq > 16) take Gluon: B=1 Hq/Hkv 32/8 Sq 8-32 Sk8k, 24.4-27.3 us against
        # the portable kernel's 26.8-45.5 (2026-11-25-h100-prefetch-and-decode/11-short-gqa/).
        # D=256 too since Gluon splits its keys there: B=1 H=8 Sq=64 Sk=8k 37.3 us against the
        # portable kernel's 63.2 (2026-11-26-h100-d256-key-split/1-cells/).
        mha = heads_q == k.shape[1]
        splits = _portable_key_splits(arch, q, k)
        short = mha and seq_q < gluon_fwd.WG_ROWS and splits > 1
        if short or KERNELS["gluon"].supports(q, k, v, arch) is not None:
            return "triton"
        return "gluon"
    for family in HOPPER_PATHS:
        if KERNELS[family].supports(q, k, v, arch) is None:
            return family
    return "triton"


def _cluster_split_wins(arch: int, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor, causal: bool) -> bool:
    """The CuTe DSL kernel (flashcore[hopper]) where it measured ahead of Gluon and the portable
    kernel (benchmarks/results/2026-11-25-h100-cute-dispatch/, paired rounds): rows of 385-512
    keys at D=64 whose grid runs in one wave, either split across two-CTA clusters (the seed's
    B=1: 4.86 / 4.80 us full / causal against 5.43 / 5.60; Sq 1-256 at B*H 8-32: 1.09-1.40x) or,
    where the split would not fit one CTA per SM, one CTA per query block with two warpgroups
    (B=2: 5.69 / 5.37 against 5.79 / 5.83; B=1 H=16 causal bf16 1.09). 384 keys or fewer
    (0.96-0.97), D=128 (1.00), 768+ keys (0.66) and decode rows on the two-warpgroup layout
    (B=16 H=8 Sq=1: 0.95) stay where they were. Checked on shapes beyond the seed in
    9-rule-check/: Sq 1-4096, B*H 1-64, causal, bf16, 1.09-1.18."""
    batch, heads_q, seq_q, head_dim = q.shape
    if head_dim != 64 or not 384 < k.shape[2] <= 512:
        return False
    if KERNELS["cute"].supports(q, k, v, arch) is not None:
        return False
    config = kernel_config("cute", arch, q.dtype, head_dim, causal, seq_q, k.shape[2], batch * heads_q)
    ctas = config.split * -(-seq_q // cute_fwd.BLOCK_M) * batch * heads_q
    if config.wgs > 1 and seq_q < cute_fwd.BLOCK_M:
        return False
    return (config.split > 1 or config.wgs > 1) and ctas <= sm_count(q.device)


def sm_count(device: torch.device) -> int:
    return device_facts(device.index if device.index is not None else torch.cuda.current_device())[0]


def _portable_key_splits(arch: int, q: torch.Tensor, k: torch.Tensor) -> int:
    """CTAs the portable kernel would split each query block's keys across."""
    batch, heads_q, seq_q, head_dim = q.shape
    return triton_config(arch, q.dtype, head_dim, False, seq_q, k.shape[2], batch * heads_q).split_kv


def _packs_gqa(arch: int, q: torch.Tensor, k: torch.Tensor) -> bool:
    """Short GQA queries (decode) go to the portable kernel, which reads each K/V tile
    once per group of query heads; the Hopper kernels read it once per query head."""
    batch, heads_q, seq_q, head_dim = q.shape
    group = heads_q // k.shape[1]
    if group == 1 or seq_q * group > triton_fwd.PACK_ROWS:
        return False
    config = triton_config(arch, q.dtype, head_dim, False, seq_q, k.shape[2], batch * heads_q, group)
    return triton_fwd.packs(config, seq_q, group)


def arch_of(device: torch.device) -> int:
    if device.type != "cuda":
        return 80
    return device_arch(device.index if device.index is not None else torch.cuda.current_device())


def size_bucket(seq_q: int, seq_k: int, batch_heads: int | None = None) -> str:
    """Coarse size key for tuned tables: powers of two of max(Sq, Sk), clamped to [64, 16384].

    With ``batch_heads``, a grid under one wave of 128-row tiles gets the suffix ``w1``
    ("512w1"): the seed shape's best tiles (64x64, 4 warps) are not the best for a
    B*H = 512 call of the same S, so the two must not share an entry.
    """
    s = max(seq_q, seq_k, 1)
    bucket = 64
    while bucket < s and bucket < 16384:
        bucket *= 2
    small = batch_heads is not None and triton_fwd.small_grid(seq_q, batch_heads)
    return f"{bucket}w1" if small else str(bucket)


def table_key(dtype: torch.dtype, head_dim: int, causal: bool, seq_q: int, seq_k: int, family: str = "triton",
              batch_heads: int | None = None) -> str:
    """Tuned-table key, e.g. "bf16/d128/causal/s8192"; other families prefix "hopper:"."""
    name = {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype, str(dtype))
    key = f"{name}/d{head_dim}/{'causal' if causal else 'full'}/s{size_bucket(seq_q, seq_k, batch_heads)}"
    return key if family == "triton" else f"{family}:{key}"


@functools.lru_cache(maxsize=None)
def tuned_table(arch: int) -> dict:
    """The tuned table for one arch, or {} when none ships. Read once per arch."""
    try:
        text = resources.files("flashcore.tuned").joinpath(f"sm{arch}.json").read_text()
    except (FileNotFoundError, ModuleNotFoundError):
        return {}
    return json.loads(text).get("entries", {})


# FLASHCORE_TUNED=0 turns the tuned tables off (heuristics only) for the process;
# heuristics_only() does it for a block, so bench can time both in one run.
_TUNED = Switch("FLASHCORE_TUNED")
heuristics_only = _TUNED.off


def tuned_tables_on() -> bool:
    return _TUNED.on


def kernel_config(
    family: str, arch: int, dtype: torch.dtype, head_dim: int, causal: bool, seq_q: int, seq_k: int,
    batch_heads: int = 1 << 16, group: int = 1,
):
    """Tuned config for the key when the table has it (and is on), else the family's heuristic.
    ``group``: query heads per KV head (Hq / Hkv), for heuristics that take it."""
    return _kernel_config(family, arch, dtype, head_dim, causal, seq_q, seq_k, batch_heads, group, _TUNED.on)


def config_source(family: str, arch: int, dtype: torch.dtype, head_dim: int, causal: bool, seq_q: int, seq_k: int,
                  batch_heads: int = 1 << 16, group: int = 1) -> str:
    """Where :func:`kernel_config` takes its config for these facts: "tuned" or "heuristic".
    ``group`` is taken so that callers pass kernel_config's facts as they are; tuned keys do
    not depend on it."""
    key = table_key(dtype, head_dim, causal, seq_q, seq_k, family, batch_heads)
    return "tuned" if _TUNED.on and key in tuned_table(arch) else "heuristic"


@functools.lru_cache(maxsize=4096)
def _kernel_config(family, arch, dtype, head_dim, causal, seq_q, seq_k, batch_heads, group, use_tuned):
    module = KERNELS[family]
    entry = None
    if use_tuned:
        entry = tuned_table(arch).get(table_key(dtype, head_dim, causal, seq_q, seq_k, family, batch_heads))
    if entry is None:
        extra = {"group": group} if "group" in inspect.signature(module.heuristic_config).parameters else {}
        return module.heuristic_config(arch, head_dim, dtype.itemsize, causal, seq_q, seq_k, batch_heads, **extra)
    # Buckets key on max(Sq, Sk): a decode-like call (Sq=1, Sk=8k) must not inherit
    # the s8192 entry's 128-row tiles.
    return triton_fwd.fit_seq_q(module.Config(**entry["config"]), seq_q)


def triton_config(arch, dtype, head_dim, causal, seq_q, seq_k, batch_heads: int = 1 << 16, group: int = 1):
    return kernel_config("triton", arch, dtype, head_dim, causal, seq_q, seq_k, batch_heads, group)
