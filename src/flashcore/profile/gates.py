"""Gates: thresholds from a TOML file (``gates.toml``), evaluated on profile results.

A gate names a metric, a ``min`` or ``max``, and when it applies (always, or only at
compute-bound or memory-bound shapes). Only flashcore's own providers are gated;
peers are there for comparison. A gate that applies but whose metric was not
measured fails: a gate that cannot see must not pass.
"""

from __future__ import annotations

import tomllib
from dataclasses import asdict, dataclass, replace
from importlib import resources
from pathlib import Path

WHEN = ("always", "compute_bound", "memory_bound")
_GATE_KEYS = {"metric", "min", "max", "when", "enabled", "why"}


class GateConfigError(ValueError):
    """The gates file is malformed."""


@dataclass(frozen=True)
class Gate:
    name: str
    metric: str
    bound: str  # "min" or "max"
    value: float
    when: str = "always"
    enabled: bool = True
    why: str = ""

    def describe(self) -> str:
        op = ">=" if self.bound == "min" else "<="
        scope = "" if self.when == "always" else f" ({self.when.replace('_', '-')} shapes)"
        return f"{self.metric} {op} {self.value:g}{scope}"


@dataclass(frozen=True)
class GateSet:
    gates: tuple[Gate, ...]
    compute_bound_flops_per_byte: float
    source: str

    def by_name(self) -> dict[str, Gate]:
        return {g.name: g for g in self.gates}


@dataclass(frozen=True)
class GateResult:
    gate: str
    provider: str
    status: str  # "pass", "fail" or "skip"
    observed: float | None
    expected: str
    message: str

    def as_dict(self) -> dict:
        return asdict(self)


# ----------------------------------------------------------------------------------
# Loading
# ----------------------------------------------------------------------------------
def load(path: str | Path | None = None) -> GateSet:
    """Gates from ``path``, or the packaged ``gates.toml``."""
    if path is None:
        text, source = resources.files("flashcore.profile").joinpath("gates.toml").read_text(), "gates.toml (packaged)"
    else:
        try:
            text, source = Path(path).read_text(), str(path)
        except OSError as exc:
            raise GateConfigError(f"--gates: cannot read {path!r}: {exc}") from exc
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raise GateConfigError(f"{source}: not valid TOML: {exc}") from exc
    return parse(data, source)


def parse(data: dict, source: str) -> GateSet:
    ridge = data.get("classify", {}).get("compute_bound_flops_per_byte", 300.0)
    if not isinstance(ridge, (int, float)) or ridge <= 0:
        raise GateConfigError(f"{source}: expected [classify] compute_bound_flops_per_byte > 0, got {ridge!r}")
    gates = tuple(_gate(name, spec, source) for name, spec in data.get("gate", {}).items())
    return GateSet(gates, float(ridge), source)


def _gate(name: str, spec: dict, source: str) -> Gate:
    where = f"{source}: [gate.{name}]"
    if not isinstance(spec, dict):
        raise GateConfigError(f"{where}: expected a table, got {type(spec).__name__}")
    unknown = set(spec) - _GATE_KEYS
    if unknown:
        raise GateConfigError(f"{where}: unknown keys {sorted(unknown)}; allowed: {sorted(_GATE_KEYS)}")
    bounds = [b for b in ("min", "max") if b in spec]
    if len(bounds) != 1:
        raise GateConfigError(f"{where}: expected exactly one of `min` or `max`, got {bounds or 'neither'}")
    value = spec[bounds[0]]
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise GateConfigError(f"{where}: expected a number for `{bounds[0]}`, got {value!r}")
    when = spec.get("when", "always")
    if when not in WHEN:
        raise GateConfigError(f"{where}: expected `when` in {WHEN}, got {when!r}")
    if not isinstance(spec.get("metric"), str):
        raise GateConfigError(f"{where}: expected `metric` naming a profile metric, got {spec.get('metric')!r}")
    return Gate(name, spec["metric"], bounds[0], float(value), when,
                bool(spec.get("enabled", True)), str(spec.get("why", "")))


def override(gates: GateSet, values: dict[str, float]) -> GateSet:
    """Set gates' thresholds from flags; a gate given a value is enabled."""
    known = gates.by_name()
    for name in values:
        if name not in known:
            raise GateConfigError(f"no gate named {name!r} in {gates.source}; gates: {sorted(known)}")
    new = tuple(replace(g, value=float(values[g.name]), enabled=True) if g.name in values else g
                for g in gates.gates)
    return replace(gates, gates=new)


# ----------------------------------------------------------------------------------
# Shape regime
# ----------------------------------------------------------------------------------
def intensity(case) -> float:
    """FLOPs per byte of minimum DRAM traffic (q, k, v read and o written once)."""
    from ..bench.cases import flops, io_bytes

    return flops(case) / max(io_bytes(case), 1)


def regime(case, gates: GateSet) -> str:
    return "compute_bound" if intensity(case) >= gates.compute_bound_flops_per_byte else "memory_bound"


# ----------------------------------------------------------------------------------
# Evaluation
# ----------------------------------------------------------------------------------
def is_gated(provider: str) -> bool:
    return provider == "flashcore" or provider.startswith("flashcore-")


def evaluate(gates: GateSet, rows: dict[str, dict], shape_regime: str) -> list[GateResult]:
    """Each enabled gate against each flashcore provider's metrics."""
    results = []
    for provider, metrics in rows.items():
        if not is_gated(provider):
            continue
        for gate in gates.gates:
            results.append(_check(gate, provider, metrics, shape_regime))
    return results


def _check(gate: Gate, provider: str, metrics: dict, shape_regime: str) -> GateResult:
    expected = gate.describe()
    if not gate.enabled:
        return GateResult(gate.name, provider, "skip", None, expected, "disabled")
    if gate.when != "always" and gate.when != shape_regime:
        return GateResult(gate.name, provider, "skip", None, expected, f"shape is {shape_regime.replace('_', '-')}")
    observed = metrics.get(gate.metric)
    if observed is None:
        return GateResult(gate.name, provider, "fail", None, expected, f"{gate.metric} was not measured")
    ok = observed >= gate.value if gate.bound == "min" else observed <= gate.value
    verdict = "pass" if ok else "fail"
    return GateResult(gate.name, provider, verdict, float(observed), expected, f"{gate.metric} = {observed:.4g}")


def failures(results: list[GateResult]) -> list[GateResult]:
    return [r for r in results if r.status == "fail"]
