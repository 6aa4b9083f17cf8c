"""Providers: one small adapter per attention implementation, behind one interface.

bench, tune and profile only ever talk to a :class:`Provider`:

- ``name``;
- ``supports(case)`` returns ``None`` when it can run the case, else the reason.
  Reasons starting with ``"missing:"`` mean the implementation is not installed;
  any other reason means this case (or device) is unsupported;
- ``prepare(case, q, k, v)`` takes BHSD inputs and does any untimed set-up
  (layout changes, handles). It may raise :class:`Unsupported` for limits that only
  show with real tensors (e.g. no SDPA kernel accepts them);
- ``run()`` computes once on the prepared inputs and returns the output as a
  (B, Hq, Sq, D) tensor (a view is fine);
- ``session()`` (optional) is a context manager held around all of a provider's
  calls for one case: SDPA's backend selection lives there, so that ``run()`` is the
  bare call a user would time.

Adding a peer is a subclass with those methods and one line in :data:`REGISTRY`.

Besides the registry's names, ``flashcore-<family>[field=value,...]`` names one fixed
config of a kernel family (:class:`ConfigProvider`), so that configs are compared in
one bench run, in its alternating rounds and behind its correctness check.

Causal alignment: flashcore's mask is bottom-right aligned (FlashAttention's
convention; FA2 and FA4 agree). SDPA's ``is_causal`` is top-left aligned, which
differs when Sq != Sk, so the SDPA kernel providers report such cases as
unsupported. ``sdpa-math`` (small shapes only) passes an explicit bottom-right
boolean mask instead, so it still covers them.
"""

from __future__ import annotations

import contextlib
import copy
import dataclasses
import functools
import importlib
import re
import warnings
from typing import Callable

import torch
import torch.nn.functional as F

from .. import api, dispatch, validate
from ..kernels.launch import without_pdl
from ..kernels.triton_fwd import INTERPRET
from ..reference import causal_offset, default_scale
from .cases import Case

NO_KERNEL = ("No available kernel", "No viable backend")
SMALL_SCORES = 2**26  # B*Hq*Sq*Sk up to which the unfused providers (reference, sdpa-math) run


class Unsupported(Exception):
    """Raised by ``prepare`` when a provider cannot run these tensors; the message is the reason."""


class Provider:
    name: str = "?"
    note: str = ""  # set by prepare when the provider had to adapt (e.g. expanded K/V)

    def supports(self, case: Case) -> str | None:
        return None

    def prepare(self, case: Case, q: torch.Tensor, k: torch.Tensor, v: torch.Tensor) -> None:
        self.case, self.q, self.k, self.v = case, q, k, v

    def run(self) -> torch.Tensor:
        raise NotImplementedError

    def session(self):
        return contextlib.nullcontext()

    def bound(self, case: Case, q, k, v) -> Callable[[], torch.Tensor]:
        """A copy prepared on these inputs, as a callable: timing rotates among several."""
        twin = copy.copy(self)
        twin.prepare(case, q, k, v)
        return twin.run


def _small(case: Case) -> bool:
    return case.batch * case.heads_q * case.seq_q * case.sk <= SMALL_SCORES


def _needs_cuda() -> str | None:
    return None if torch.cuda.is_available() else "unsupported: needs a CUDA GPU"


def _needs_kernel_device() -> str | None:
    """The fused kernels run on CUDA, or on CPU under Triton's interpreter."""
    if torch.cuda.is_available() or INTERPRET:
        return None
    return "unsupported: needs CUDA, or TRITON_INTERPRET=1 set before flashcore is imported"


def _check_family(module, q, k, v) -> None:
    """A kernel module's own ``supports(q, k, v, arch)`` reason, as :class:`Unsupported`."""
    family_supports = getattr(module, "supports", None)
    reason = family_supports(q, k, v, dispatch.arch_of(q.device)) if family_supports else None
    if reason:
        raise Unsupported(f"unsupported: {reason}")


class FlashcoreProvider(Provider):
    """``flashcore.attention`` with a given backend ("auto" is what users get).

    A fused kernel family whose module has ``supports(q, k, v, arch)`` (e.g. hopper)
    is asked in ``prepare``; its reason becomes :class:`Unsupported`.
    """

    def __init__(self, backend: str = "auto", tuned: bool = True, pdl: bool = True):
        self.backend = backend
        self.tuned = tuned
        self.pdl = pdl
        self.name = "flashcore" if backend == "auto" else f"flashcore-{backend}"
        if not tuned:
            self.name += "-heuristic"
        if not pdl:
            self.name += "-nopdl"

    def _switches(self) -> contextlib.ExitStack:
        """The process-wide switches this provider runs under (tuned tables, PDL)."""
        stack = contextlib.ExitStack()
        if not self.tuned:
            stack.enter_context(dispatch.heuristics_only())
        if not self.pdl:
            stack.enter_context(without_pdl())
        return stack

    def supports(self, case: Case) -> str | None:
        if self.backend in dispatch.KERNELS and (reason := _needs_kernel_device()):
            return reason
        if self.backend == "reference" and not _small(case):
            return f"unsupported: reference runs small shapes only (B*Hq*Sq*Sk <= 2^{SMALL_SCORES.bit_length() - 1})"
        if self.backend != "reference" and not _fused_head_dim_ok(case.head_dim):
            return (f"unsupported: head dim {case.head_dim} (the fused kernels take multiples of "
                    f"{validate.HEAD_DIM_MULTIPLE} from {validate.MIN_HEAD_DIM} to {validate.MAX_HEAD_DIM})")
        return None

    def prepare(self, case, q, k, v) -> None:
        super().prepare(case, q, k, v)
        if self.backend == "auto":
            with self._switches():
                self.note = _dispatched(q, k, v, case.causal)
        _check_family(dispatch.KERNELS.get(self.backend), q, k, v)

    def run(self) -> torch.Tensor:
        if self.tuned and self.pdl:
            return api.attention(self.q, self.k, self.v, causal=self.case.causal, backend=self.backend)
        with self._switches():
            return api.attention(self.q, self.k, self.v, causal=self.case.causal, backend=self.backend)


def _dispatched(q, k, v, causal: bool) -> str:
    """What "auto" runs for these tensors and with which config, for the record's note."""
    try:
        concrete = dispatch.resolve_backend("auto", q.device)
        if concrete != "auto":
            return f"auto -> {concrete}"
        family = dispatch.kernel_for("auto", q, k, v, causal)
        batch, heads_q, seq_q, head_dim = q.shape
        facts = (family, dispatch.arch_of(q.device), q.dtype, head_dim, causal, seq_q, k.shape[2], batch * heads_q,
                 heads_q // k.shape[1])
        config = dispatch.kernel_config(*facts)
    except Exception:  # noqa: BLE001 - dispatch internals may change; the note is optional
        return ""
    params = " ".join(f"{k}={v}" for k, v in dataclasses.asdict(config).items())
    return f"auto -> {family} ({dispatch.config_source(*facts)}: {params})"


def _fused_head_dim_ok(head_dim: int) -> bool:
    return (validate.MIN_HEAD_DIM <= head_dim <= validate.MAX_HEAD_DIM
            and head_dim % validate.HEAD_DIM_MULTIPLE == 0)


# ----------------------------------------------------------------------------------
# PyTorch SDPA
# ----------------------------------------------------------------------------------
def _sdpa_backends() -> dict:
    from torch.nn.attention import SDPBackend

    return {
        "flash": SDPBackend.FLASH_ATTENTION,
        "cudnn": SDPBackend.CUDNN_ATTENTION,
        "efficient": SDPBackend.EFFICIENT_ATTENTION,
        "math": SDPBackend.MATH,
    }


def bottom_right_mask(seq_q: int, seq_k: int, device) -> torch.Tensor:
    """Boolean (Sq, Sk) mask, True where visible: key j <= query i + Sk - Sq."""
    rows = torch.arange(seq_q, device=device)[:, None]
    cols = torch.arange(seq_k, device=device)[None, :]
    return cols <= rows + causal_offset(seq_q, seq_k)


class SdpaProvider(Provider):
    """``F.scaled_dot_product_attention``; ``backend`` None lets PyTorch choose (the default).

    GQA: ``enable_gqa=True``. When the forced backend rejects that, ``prepare``
    expands K and V with ``repeat_interleave`` (untimed) and says so in ``note``.
    """

    def __init__(self, backend: str | None = None):
        self.backend = backend
        self.name = "sdpa" if backend is None else f"sdpa-{backend}"
        self.note = ""

    def supports(self, case: Case) -> str | None:
        if self.backend == "math" and not _small(case):
            return f"unsupported: sdpa-math runs small shapes only (B*Hq*Sq*Sk <= 2^{SMALL_SCORES.bit_length() - 1})"
        if self.backend in ("flash", "cudnn", "efficient") and not torch.cuda.is_available():
            return "unsupported: needs a CUDA GPU"
        if case.causal and case.seq_q != case.sk and self.backend != "math":
            return ("unsupported: SDPA's is_causal is top-left aligned, flashcore's causal is "
                    "bottom-right (they differ when Sq != Sk)")
        return None

    def session(self):
        if self.backend is None:
            return contextlib.nullcontext()
        from torch.nn.attention import sdpa_kernel

        return sdpa_kernel([_sdpa_backends()[self.backend]])

    def prepare(self, case, q, k, v) -> None:
        super().prepare(case, q, k, v)
        self.kwargs = {"is_causal": case.causal}
        if case.causal and case.seq_q != case.sk:  # sdpa-math only (see supports)
            self.kwargs = {"attn_mask": bottom_right_mask(case.seq_q, case.sk, q.device)}
        self.gqa = case.hkv != case.heads_q
        self.note = ""
        self._first_call()

    def _first_call(self) -> None:
        """One untimed call that finds out whether a kernel accepts these tensors."""
        error = self._try()
        if error and self.gqa:
            group = self.case.heads_q // self.case.hkv
            self.k = self.k.repeat_interleave(group, dim=1)
            self.v = self.v.repeat_interleave(group, dim=1)
            self.gqa = False
            if self._try() is None:
                self.note = "GQA: K/V expanded with repeat_interleave in prepare (untimed)"
                return
        if error:
            raise Unsupported(error)

    def _try(self) -> str | None:
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            try:
                self.run()
                return None
            except RuntimeError as exc:
                # CUDA says "No available kernel", CPU "No viable backend".
                if not any(text in str(exc) for text in NO_KERNEL):
                    raise
                # SDPA explains itself in one warning per backend it could not use.
                reasons = dict.fromkeys(str(w.message).strip().splitlines()[0] for w in caught if str(w.message).strip())
                return f"unsupported: {'; '.join(reasons) or str(exc).splitlines()[0]}"

    def run(self) -> torch.Tensor:
        if self.gqa:
            return F.scaled_dot_product_attention(self.q, self.k, self.v, enable_gqa=True, **self.kwargs)
        return F.scaled_dot_product_attention(self.q, self.k, self.v, **self.kwargs)


# ----------------------------------------------------------------------------------
# FlashAttention (Dao-AILab): FA4 (CuTe DSL) and FA2. Both take (B, S, H, D).
# ----------------------------------------------------------------------------------
def _import(module: str, attr: str):
    """``module.attr`` or None. Import errors of any kind count as not importable."""
    try:
        return getattr(importlib.import_module(module), attr)
    except Exception:  # noqa: BLE001 - a broken install is as missing as an absent one
        return None


class FlashAttnProvider(Provider):
    """``flash_attn_func(q, k, v, softmax_scale=None, causal=...)`` on (B, S, H, D) copies.

    The layout change is done in ``prepare`` (untimed). A tuple return is (out, lse, ...).
    """

    def __init__(self, name: str, module: str):
        self.name, self.module = name, module
        self._fn = None
        self._looked = False

    def _func(self):
        if not self._looked:
            self._fn, self._looked = _import(self.module, "flash_attn_func"), True
        return self._fn

    def supports(self, case: Case) -> str | None:
        if self._func() is None:
            return f"missing: {self.module} not importable"
        return _needs_cuda()

    def prepare(self, case, q, k, v) -> None:
        super().prepare(case, q, k, v)
        self.bshd = [t.transpose(1, 2).contiguous() for t in (q, k, v)]
        if getattr(self, "_tried", None) != case:
            self._first_call()
            self._tried = case

    def _first_call(self) -> None:
        """One untimed call per case: FlashAttention states its limits (head dims, archs)
        with assertions and argument errors, which mean "unsupported", not "broken"."""
        try:
            self.run()
        except (AssertionError, NotImplementedError, ValueError, TypeError) as exc:
            raise Unsupported(f"unsupported: {type(exc).__name__}: {exc}") from exc

    def run(self) -> torch.Tensor:
        out = self._func()(*self.bshd, softmax_scale=None, causal=self.case.causal)
        if isinstance(out, tuple):
            out = out[0]
        return out.transpose(1, 2)


# ----------------------------------------------------------------------------------
# One fixed config of a kernel family
# ----------------------------------------------------------------------------------
CONFIG_SPEC = re.compile(r"flashcore-(?P<family>[a-z0-9_]+)\[(?P<fields>[^\[\]]*)\]")
_TRUE, _FALSE = ("1", "true", "yes"), ("0", "false", "no")


def parse_config_spec(spec: str):
    """``flashcore-gluon[block_m=128,block_n=64,...]`` -> (kernel module, its Config).

    Fields left out take the Config's defaults; a ValueError names what is wrong."""
    match = CONFIG_SPEC.fullmatch(spec.strip())
    if match is None:
        raise ValueError(f"config provider {spec!r}: expected flashcore-<family>[field=value,...], e.g. "
                         f"flashcore-gluon[block_m=128,block_n=128,num_warps=8,num_stages=2]")
    family = match["family"]
    if family not in dispatch.KERNELS:
        raise ValueError(f"config provider {spec!r}: unknown kernel family {family!r}; expected one of "
                         f"{', '.join(dispatch.KERNELS)}")
    module = dispatch.KERNELS[family]
    fields = {f.name: f for f in dataclasses.fields(module.Config)}
    values = {}
    for item in filter(None, (x.strip() for x in match["fields"].split(","))):
        name, _, text = item.partition("=")
        name = name.strip()
        if name not in fields:
            raise ValueError(f"config provider {spec!r}: {family} Config has no field {name!r}; "
                             f"its fields are {', '.join(fields)}")
        values[name] = _field_value(spec, fields[name], text.strip())
    try:
        return module, module.Config(**values)
    except TypeError as exc:
        raise ValueError(f"config provider {spec!r}: {exc}; give every field without a default "
                         f"({', '.join(n for n, f in fields.items() if f.default is dataclasses.MISSING)})") from None


def _field_value(spec: str, field: dataclasses.Field, text: str):
    if field.type in (bool, "bool"):
        if text.lower() in _TRUE + _FALSE:
            return text.lower() in _TRUE
        expected = "true/false or 1/0"
    else:
        try:
            return int(text)
        except ValueError:
            expected = "an integer"
    raise ValueError(f"config provider {spec!r}: {field.name}={text!r}, expected {expected}")


def split_provider_list(text: str) -> list[str]:
    """Split on the commas that are not inside a config spec's brackets."""
    names, depth, start = [], 0, 0
    for i, ch in enumerate(text):
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            names.append(text[start:i])
            start = i + 1
    names.append(text[start:])
    return [n.strip() for n in names if n.strip()]


class ConfigProvider(Provider):
    """One fixed config of one kernel family, launched directly (no dispatch, no tuned
    table). The family's ``constraints(config, head_dim)`` and ``supports`` decide what
    it can run; anything they let through still faces the bench's correctness check."""

    def __init__(self, spec: str):
        self.module, self.config = parse_config_spec(spec)
        self.name = spec.strip()

    def supports(self, case: Case) -> str | None:
        if reason := _needs_kernel_device():
            return reason
        constraints = getattr(self.module, "constraints", None)
        reason = constraints(self.config, case.head_dim) if constraints else None
        return f"unsupported: {reason}" if reason else None

    def prepare(self, case, q, k, v) -> None:
        super().prepare(case, q, k, v)
        _check_family(self.module, q, k, v)
        self.scale = default_scale(case.head_dim)

    def run(self) -> torch.Tensor:
        return self.module.forward(self.q, self.k, self.v, self.case.causal, self.scale, self.config)[0]


# ----------------------------------------------------------------------------------
# Registry
# ----------------------------------------------------------------------------------
REGISTRY: dict[str, Callable[[], Provider]] = {
    "flashcore": lambda: FlashcoreProvider("auto"),
    # one provider per fused kernel family that dispatch knows (triton, hopper, ...)
    **{f"flashcore-{b}": functools.partial(FlashcoreProvider, b) for b in dispatch.KERNELS},
    "flashcore-reference": lambda: FlashcoreProvider("reference"),
    # the same dispatch with the tuned table off: does the table pay for itself?
    "flashcore-heuristic": lambda: FlashcoreProvider("auto", tuned=False),
    **{f"flashcore-{b}-heuristic": functools.partial(FlashcoreProvider, b, tuned=False) for b in dispatch.KERNELS},
    # the same dispatch launched without PDL: what overlapping launches buys back to back
    "flashcore-nopdl": lambda: FlashcoreProvider("auto", pdl=False),
    "sdpa": lambda: SdpaProvider(None),
    "sdpa-flash": lambda: SdpaProvider("flash"),
    "sdpa-cudnn": lambda: SdpaProvider("cudnn"),
    "sdpa-efficient": lambda: SdpaProvider("efficient"),
    "sdpa-math": lambda: SdpaProvider("math"),
    "fa4": lambda: FlashAttnProvider("fa4", "flash_attn.cute"),
    "fa2": lambda: FlashAttnProvider("fa2", "flash_attn"),
}
SUBJECT = "flashcore"  # the provider whose speedups the report summarises
BASELINE = "sdpa"  # the SDPA default, with no backend forced


def known_providers() -> list[str]:
    return list(REGISTRY)


def is_peer(name: str) -> bool:
    """Peers are the other implementations: not flashcore's own backends."""
    return not name.startswith("flashcore")


def is_config_spec(name: str) -> bool:
    return "[" in name


def parse_provider_list(text: str) -> list[str]:
    """``"a,b"`` -> ``["a", "b"]``; ValueError names unknown entries and the known ones.
    Config specs (``flashcore-<family>[...]``) are parsed here, so their errors come early."""
    names = split_provider_list(text)
    if not names:
        raise ValueError(f"--providers expects a comma list of: {', '.join(REGISTRY)}; got {text!r}")
    for name in filter(is_config_spec, names):
        parse_config_spec(name)
    unknown = [n for n in names if n not in REGISTRY and not is_config_spec(n)]
    if unknown:
        raise ValueError(f"--providers: unknown provider(s) {', '.join(map(repr, unknown))}; "
                         f"expected a comma list of: {', '.join(REGISTRY)}")
    return list(dict.fromkeys(names))


def get_providers(names: list[str] | None = None) -> list[Provider]:
    """Fresh provider instances, in the given order (all known ones when None)."""
    names = known_providers() if names is None else names
    unknown = [n for n in names if n not in REGISTRY and not is_config_spec(n)]
    if unknown:
        raise ValueError(f"unknown provider(s) {', '.join(map(repr, unknown))}; known: {', '.join(REGISTRY)}, "
                         f"or flashcore-<family>[field=value,...]")
    return [ConfigProvider(n) if is_config_spec(n) else REGISTRY[n]() for n in names]


def versions_of_peers() -> dict:
    """Installed versions of the optional peers (None when absent)."""
    from importlib import metadata

    found = {}
    for key, dists in (("fa4", ("fa4", "flash-attn-4", "flash-attn-cute")), ("fa2", ("flash-attn", "flash_attn"))):
        found[key] = None
        for dist in dists:
            try:
                found[key] = metadata.version(dist)
                break
            except metadata.PackageNotFoundError:
                continue
    return found
