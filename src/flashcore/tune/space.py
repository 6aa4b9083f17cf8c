"""A kernel family's search space, read from the kernel module as data.

The tuner never names a kernel parameter. A family module exposes

- ``SEARCH_SPACE``: ``{param: (value, ...)}``, every point a keyword set for ``Config``;
- ``Config``: a dataclass built as ``Config(**params)``;
- ``heuristic_config(...)``: the fallback config. Its arguments are bound *by name*
  from the case facts (:func:`case_facts`: ``arch, head_dim, dtype_bytes, causal,
  seq_q, seq_k, ...``), so any signature built from those names works;
- ``forward(q, k, v, causal, scale, config, out=None, lse=None) -> (out, lse)``;
- optionally ``constraints(config, ...) -> reason | None`` for known-bad points
  (bound by name like the heuristic), ``supports(q, k, v, arch) -> reason | None``
  for inputs the kernel cannot take, and ``offline_resources(config, case, arch)``
  returning a ``profile.resources.ResourceReport``-like object (``error``,
  ``shared_bytes``, ``smem_limit``) for an offline compile.

Families registered in ``flashcore.dispatch.KERNELS`` may be named by their short
name ("triton", "hopper"); their tuned-table keys carry that name
(:func:`flashcore.dispatch.table_key`).

Adding a parameter to a kernel means adding it to its ``SEARCH_SPACE`` and ``Config``;
nothing here changes. Points are plain dicts (``params``) inside the search and become
``Config`` objects only at the boundary (:meth:`KernelFamily.make`).
"""

from __future__ import annotations

import dataclasses
import importlib
import inspect
import random
from dataclasses import dataclass
from typing import Any, Callable

DEFAULT_FAMILY = "flashcore.kernels.triton_fwd"
_DOT_MIN = 16  # tl.dot needs M, N, K >= 16


class SpaceError(ValueError):
    """A family module or a point does not fit the contract above."""


@dataclass(frozen=True)
class KernelFamily:
    """Everything the tuner needs from one kernel module, as data and callables."""

    name: str
    space: dict[str, tuple]
    config_cls: type
    heuristic_fn: Callable
    forward: Callable
    constraints_fn: Callable | None = None
    offline_fn: Callable | None = None
    supports_fn: Callable | None = None
    module: Any = None
    short: str | None = None  # the name dispatch knows it by; None: not dispatched

    def table_key(self, case) -> str:
        from ..dispatch import table_key

        return table_key(case.dtype, case.head_dim, case.causal, case.seq_q, case.sk, self.short or "triton",
                         case.batch * case.heads_q)

    def make(self, params: dict):
        """``Config(**params)``; a SpaceError names the field when it does not fit."""
        try:
            return self.config_cls(**params)
        except TypeError as exc:
            fields = [f.name for f in dataclasses.fields(self.config_cls)]
            raise SpaceError(f"{self.name}.Config rejects {params}: {exc}; expected fields {fields}") from None

    def params_of(self, config) -> dict:
        return dataclasses.asdict(config)

    def heuristic(self, case, arch: int) -> dict:
        return self.params_of(_call_by_name(self.heuristic_fn, case_facts(case, arch)))

    def check(self, params: dict, case, arch: int) -> str | None:
        """Why a point is known-bad before anything compiles, or None."""
        reason = generic_constraints(params)
        if reason or self.constraints_fn is None:
            return reason
        facts = case_facts(case, arch) | {"config": self.make(params), "params": params}
        return _call_by_name(self.constraints_fn, facts)

    def jit_functions(self) -> list:
        """The module's Triton kernels, to identify the binaries a launch used."""
        from triton.runtime.jit import JITFunction

        return [v for v in vars(self.module).values() if isinstance(v, JITFunction)] if self.module else []


def case_facts(case, arch: int) -> dict:
    """The names a heuristic or constraint hook may ask for."""
    return {
        "case": case, "arch": arch, "head_dim": case.head_dim, "dtype": case.dtype,
        "dtype_bytes": case.dtype.itemsize, "causal": case.causal, "seq_q": case.seq_q,
        "seq_k": case.sk, "batch": case.batch, "heads_q": case.heads_q, "heads_kv": case.hkv,
        "batch_heads": case.batch * case.heads_q, "group": case.heads_q // case.hkv,
    }


def _call_by_name(fn: Callable, facts: dict):
    params = inspect.signature(fn).parameters
    missing = [n for n, p in params.items() if n not in facts and p.default is inspect.Parameter.empty
               and p.kind not in (p.VAR_POSITIONAL, p.VAR_KEYWORD)]
    if missing:
        raise SpaceError(f"{fn.__module__}.{fn.__name__} asks for {missing}; "
                         f"hooks may only take {sorted(facts)}")
    return fn(**{n: facts[n] for n in params if n in facts})


def generic_constraints(params: dict) -> str | None:
    """Rules true of every Triton attention kernel whose space has these names."""
    for name in ("block_m", "block_n"):
        if name in params and params[name] < _DOT_MIN:
            return f"{name}={params[name]} < {_DOT_MIN}: tl.dot needs M, N >= 16"
    return None


def dispatched_families() -> dict[str, str]:
    """Short name -> module name, for the families dispatch can run."""
    from ..dispatch import KERNELS

    return {name: module.__name__ for name, module in KERNELS.items()}


def load_family(name: str = DEFAULT_FAMILY) -> KernelFamily:
    """Build the adapter for a kernel module (or a dispatch short name); errors say how to fix."""
    known = dispatched_families()
    module_name = known.get(name, name)
    try:
        module = importlib.import_module(module_name)
    except ImportError as exc:
        raise SpaceError(f"--family {name!r}: cannot import ({exc}); expected one of "
                         f"{', '.join(known)} or a module path such as {DEFAULT_FAMILY}") from None
    need = {"SEARCH_SPACE": "dict param -> values", "Config": "dataclass",
            "heuristic_config": "fallback config", "forward": "launcher"}
    missing = [f"{n} ({what})" for n, what in need.items() if not hasattr(module, n)]
    if missing:
        raise SpaceError(f"kernel module {module_name} lacks {', '.join(missing)}; add them to be tunable")
    space = {k: tuple(v) for k, v in module.SEARCH_SPACE.items()}
    _check_space(module_name, space, module.Config)
    fallback = _FALLBACK_HOOKS.get(module_name, {})
    return KernelFamily(
        name=module_name, space=space, config_cls=module.Config, heuristic_fn=module.heuristic_config,
        forward=module.forward, module=module,
        constraints_fn=getattr(module, "constraints", None) or fallback.get("constraints"),
        offline_fn=getattr(module, "offline_resources", None) or fallback.get("offline_resources"),
        supports_fn=getattr(module, "supports", None),
        short=next((k for k, v in known.items() if v == module_name), None),
    )


def _check_space(module_name: str, space: dict, config_cls) -> None:
    if not dataclasses.is_dataclass(config_cls):
        raise SpaceError(f"{module_name}.Config must be a dataclass, got {config_cls!r}")
    fields = {f.name for f in dataclasses.fields(config_cls)}
    extra = sorted(set(space) - fields)
    if extra:
        raise SpaceError(f"{module_name}.SEARCH_SPACE has {extra}, which Config lacks; add the fields to Config")
    empty = [k for k, v in space.items() if not v]
    if empty:
        raise SpaceError(f"{module_name}.SEARCH_SPACE[{empty[0]!r}] is empty; give at least one value")


# ----------------------------------------------------------------------------------
# Points: keys, sampling, mutation, crossover. All stay inside the space.
# ----------------------------------------------------------------------------------
def point_key(params: dict) -> str:
    """Canonical text of a point: the identity used for dedup, logs and resume."""
    return ",".join(f"{k}={params[k]}" for k in sorted(params))


def sample(space: dict, rng: random.Random, base: dict | None = None) -> dict:
    """A uniform random point; fields outside the space keep ``base``'s values."""
    return {**(base or {}), **{k: rng.choice(v) for k, v in space.items()}}


def mutate(params: dict, space: dict, rng: random.Random) -> dict:
    """Change 1 or 2 parameters that have a choice, each to another value in the space.

    Half the changes step to a neighbouring value (sizes are ordered, and the best
    point is usually next to a good one); the rest jump anywhere.
    """
    child = project(params, space, rng)
    free = [k for k, v in space.items() if len(v) > 1]
    if not free:
        return child
    for name in rng.sample(free, k=min(len(free), rng.choice((1, 2)))):
        child[name] = _new_value(space[name], child[name], rng)
    return child


def _new_value(values: tuple, current, rng: random.Random):
    others = [v for v in values if v != current]
    if current in values and rng.random() < 0.5:
        i = values.index(current)
        near = [values[j] for j in (i - 1, i + 1) if 0 <= j < len(values)]
        return rng.choice(near)
    return rng.choice(others)


def crossover(a: dict, b: dict, space: dict, rng: random.Random) -> dict:
    """Uniform crossover: each searched parameter from one parent or the other."""
    child = dict(a)
    for name, values in space.items():
        inside = [v for v in (a.get(name), b.get(name)) if v in values]
        child[name] = rng.choice(inside or values)
    return child


def project(params: dict, space: dict, rng: random.Random) -> dict:
    """Replace values outside the space (a heuristic may use one) by random inside ones."""
    return {**params, **{k: rng.choice(v) for k, v in space.items() if params.get(k) not in v}}


def dtype_name(dtype) -> str:
    import torch

    return {torch.float16: "fp16", torch.bfloat16: "bf16"}.get(dtype, str(dtype).replace("torch.", ""))


def in_space(params: dict, space: dict) -> bool:
    return all(params.get(k) in v for k, v in space.items())


# ----------------------------------------------------------------------------------
# Known-bad points of flashcore.kernels.triton_fwd, until the module exposes its own
# ``constraints``/``offline_resources`` hooks (then these are ignored).
# ----------------------------------------------------------------------------------
def _triton_fwd_constraints(params: dict, head_dim: int, dtype_bytes: int, arch: int) -> str | None:
    from ..profile.resources import SMEM_LIMIT

    block_d = max(16, 1 << (head_dim - 1).bit_length())
    stages = params["num_stages"]
    # A lower bound checked against the offline compile sweep (docs/tune.md): K and V
    # tiles are buffered (stages - 1) times at least, one tile with 1 stage. Only points
    # certainly over the limit are pruned; the compile catches the rest.
    tile = params["block_n"] * block_d * dtype_bytes
    smem_floor = 2 * (stages - 1) * tile if stages > 1 else tile
    limit = SMEM_LIMIT.get(arch, 99 * 1024)
    if smem_floor > limit:
        return f"shared memory >= {smem_floor} B > {limit} B on sm_{arch}"
    # fp32 accumulator + score tile per thread: over 255 registers it must spill.
    regs = (params["block_m"] * (block_d + params["block_n"])) // (32 * params["num_warps"])
    if regs > 255:
        return f"register pressure: {regs} fp32 accumulator/score registers per thread > 255"
    return None


def _triton_fwd_offline(config, case, arch: int):
    # compile_one compiles in a fresh process when this one interprets (the
    # interpreter's @triton.jit functions cannot be compiled).
    from ..profile.offline import compile_one

    return compile_one(arch, case.head_dim, dtype_name(case.dtype), case.causal, config)


_FALLBACK_HOOKS = {
    "flashcore.kernels.triton_fwd": {"constraints": _triton_fwd_constraints,
                                     "offline_resources": _triton_fwd_offline},
}
