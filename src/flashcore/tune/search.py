"""The evolutionary search (EvoEngineer-inspired), pure: the evaluator is injected.

One call of :func:`search` tunes one shape bucket:

- generation 0 is the heuristic config, any seeds (e.g. elites of a neighbouring
  bucket) and random valid points, up to ``population``;
- each later generation is mutations (1-2 parameters) and crossovers of the elites,
  the top-``elites`` valid results by fitness;
- points that the constraint check rejects are pruned before evaluation and cost no
  budget; no point is evaluated twice in a bucket;
- it stops on budget (evaluations in the bucket, resumed ones included), deadline,
  ``patience`` generations without a gain of ``min_gain``, the generation cap, or
  when the space has no new valid point left.

Each generation draws from its own RNG, seeded by (seed, bucket, generation). So a
resumed run re-proposes exactly the generation it was cut off in, skips what the log
already holds, and carries on as the uninterrupted run would have.
"""

from __future__ import annotations

import math
import random
import time
from dataclasses import asdict, dataclass, field
from typing import Callable, Iterable

from . import space as sp

STOP_REASONS = ("budget", "time", "patience", "generations", "exhausted")


@dataclass
class Candidate:
    params: dict
    generation: int
    origin: str  # heuristic | seed | random | mutation | crossover

    @property
    def key(self) -> str:
        return sp.point_key(self.params)


@dataclass
class Result:
    """One evaluated candidate: a line of the JSONL log."""

    params: dict
    generation: int
    origin: str
    valid: bool
    reason: str = ""
    stage: str = ""  # where it failed: constraint | compile | correctness | timing | worker
    median_us: float | None = None
    fitness: float | None = None
    info: dict = field(default_factory=dict)

    @property
    def key(self) -> str:
        return sp.point_key(self.params)

    def to_json(self) -> dict:
        """The log's form: the point is called ``config`` there."""
        d = asdict(self)
        return {"config": d.pop("params"), **d}

    @classmethod
    def from_json(cls, d: dict) -> "Result":
        names = set(cls.__dataclass_fields__)
        fields = {k: v for k, v in d.items() if k in names}
        return cls(params=d["config"], **fields)

    @classmethod
    def invalid(cls, cand: Candidate, stage: str, reason: str, **info) -> "Result":
        return cls(cand.params, cand.generation, cand.origin, False, reason, stage, info=info)


@dataclass(frozen=True)
class Settings:
    population: int = 8
    elites: int = 4
    generations: int = 10
    budget: int | None = 24
    patience: int | None = 3
    min_gain: float = 0.01  # relative: timing noise must not count as progress
    seed: int = 0

    def __post_init__(self):
        for name in ("population", "elites", "generations"):
            if getattr(self, name) < 1:
                raise ValueError(f"--{name} must be >= 1, got {getattr(self, name)}")
        if self.budget is not None and self.budget < 0:
            raise ValueError(f"--budget must be >= 0 candidates per bucket, got {self.budget}")
        if self.patience is not None and self.patience < 1:
            raise ValueError(f"--patience must be >= 1 generation, got {self.patience}")


@dataclass
class Outcome:
    bucket: str
    results: list[Result]
    stop: str = ""
    pruned: dict[str, str] = field(default_factory=dict)  # point key -> why it was pruned
    best_by_generation: list[float | None] = field(default_factory=list)

    @property
    def valid(self) -> list[Result]:
        return [r for r in self.results if r.valid and r.fitness is not None]

    def elites(self, k: int) -> list[Result]:
        return rank(self.valid)[:k]

    @property
    def best(self) -> Result | None:
        ranked = rank(self.valid)
        return ranked[0] if ranked else None

    @property
    def heuristic(self) -> Result | None:
        return next((r for r in self.results if r.origin == "heuristic"), None)

    def pruned_by_reason(self) -> dict[str, int]:
        counts: dict[str, int] = {}
        for reason in self.pruned.values():
            label = reason.split(":")[0]
            counts[label] = counts.get(label, 0) + 1
        return counts


def rank(results: Iterable[Result]) -> list[Result]:
    """Best first: fitness, then lower time, then the key (a total, stable order)."""
    return sorted(results, key=lambda r: (-r.fitness, r.median_us or math.inf, r.key))


Evaluate = Callable[[Candidate], Result]
Check = Callable[[dict], "str | None"]


def search(
    space: dict,
    evaluate: Evaluate,
    settings: Settings,
    *,
    bucket: str,
    heuristic: dict,
    check: Check = lambda params: None,
    seeds: Iterable[dict] = (),
    history: Iterable[Result] = (),
    deadline: float | None = None,
    clock: Callable[[], float] = time.monotonic,
    on_result: Callable[[Result, Outcome], None] | None = None,
) -> Outcome:
    """Tune one bucket; returns every result (history first) and why it stopped."""
    out = Outcome(bucket, list(history))
    seen = {r.key for r in out.results}
    best, stale = None, 0
    for gen in range(settings.generations):
        if (stop := _limit(out, settings, deadline, clock)):
            out.stop = stop
            return out
        cands = propose(space, settings, bucket, gen, out, heuristic, list(seeds), check)
        todo = [c for c in cands if c.key not in seen]
        if not cands:
            out.stop = "exhausted"
            return out
        for cand in todo:
            if (stop := _limit(out, settings, deadline, clock)):
                out.stop = stop
                _close_generation(out, gen)
                return out
            result = _evaluate_safely(evaluate, cand)
            seen.add(cand.key)
            out.results.append(result)
            if on_result:
                on_result(result, out)
        gen_best = _close_generation(out, gen)
        improved = gen_best is not None and (best is None or gen_best > best * (1 + settings.min_gain))
        stale = 0 if improved else stale + 1
        best = gen_best if improved else best
        if settings.patience is not None and stale >= settings.patience:
            out.stop = "patience"
            return out
    out.stop = "generations"
    return out


def _limit(out: Outcome, settings: Settings, deadline: float | None, clock) -> str:
    if settings.budget is not None and len(out.results) >= settings.budget:
        return "budget"
    if deadline is not None and clock() >= deadline:
        return "time"
    return ""


def _close_generation(out: Outcome, gen: int) -> float | None:
    """Best fitness so far (all generations up to ``gen``), recorded for the plot."""
    best = max((r.fitness for r in out.valid if r.generation <= gen), default=None)
    out.best_by_generation[gen:] = [best]
    return best


def _evaluate_safely(evaluate: Evaluate, cand: Candidate) -> Result:
    # An evaluator bug must cost one candidate, not the search.
    try:
        return evaluate(cand)
    except Exception as exc:  # noqa: BLE001
        return Result.invalid(cand, "worker", f"evaluator raised {type(exc).__name__}: {exc}")


# ----------------------------------------------------------------------------------
# Proposals
# ----------------------------------------------------------------------------------
def generation_rng(seed: int, bucket: str, gen: int) -> random.Random:
    return random.Random(f"{seed}/{bucket}/{gen}")


def propose(space, settings, bucket, gen, out, heuristic, seeds, check) -> list[Candidate]:
    """The candidates of generation ``gen``, given the results of earlier ones."""
    rng = generation_rng(settings.seed, bucket, gen)
    earlier = Outcome(bucket, [r for r in out.results if r.generation < gen])
    taken = {r.key for r in earlier.results}
    picker = _Picker(space, check, taken, out.pruned)
    if gen == 0:
        picker.add(dict(heuristic), 0, "heuristic", force=True)
        for s in seeds:
            picker.add({**heuristic, **s}, 0, "seed")
    else:
        _offspring(picker, earlier.elites(settings.elites), gen, settings.population, rng)
    picker.fill_random(heuristic, gen, settings.population, rng)
    return picker.picked


def _offspring(picker, elites: list[Result], gen: int, population: int, rng: random.Random) -> None:
    for _ in range(population * 20):
        if len(picker.picked) >= population or not elites:
            return
        if len(elites) >= 2 and rng.random() < 0.5:
            a, b = rng.sample(elites, 2)
            child, origin = sp.crossover(a.params, b.params, picker.space, rng), "crossover"
            if sp.point_key(child) in picker.taken:
                child = sp.mutate(child, picker.space, rng)
        else:
            # Rank-biased: the best elite is picked most often.
            parent = elites[min(int(rng.expovariate(1.0)), len(elites) - 1)]
            child, origin = sp.mutate(parent.params, picker.space, rng), "mutation"
        picker.add(child, gen, origin)


class _Picker:
    """Collects new, valid, distinct points; counts pruned ones by reason."""

    def __init__(self, space, check, taken, pruned):
        self.space, self.check, self.taken, self.pruned = space, check, set(taken), pruned
        self.picked: list[Candidate] = []
        self.rejected: set[str] = set()

    def add(self, params: dict, gen: int, origin: str, force: bool = False) -> bool:
        key = sp.point_key(params)
        if key in self.taken or key in self.rejected:
            return False
        reason = None if force else self.check(params)
        if reason:
            self.rejected.add(key)
            self.pruned[key] = reason
            return False
        self.taken.add(key)
        self.picked.append(Candidate(dict(params), gen, origin))
        return True

    def fill_random(self, base: dict, gen: int, population: int, rng: random.Random) -> None:
        for _ in range(population * 50):
            if len(self.picked) >= population:
                return
            self.add(sp.sample(self.space, rng, base), gen, "random")
