"""The evolutionary loop with a deterministic fake evaluator: no worker, no kernel."""

import json

import pytest

from flashcore.tune import space as sp
from flashcore.tune.search import Result, Settings, rank, search

SPACE = {"block_m": (16, 32, 64, 128), "block_n": (16, 32, 64, 128), "num_warps": (2, 4, 8), "num_stages": (1, 2, 3, 4)}
HEURISTIC = {"block_m": 64, "block_n": 32, "num_warps": 4, "num_stages": 2}
BEST = {"block_m": 128, "block_n": 64, "num_warps": 8, "num_stages": 3}


def landscape(p: dict) -> float:
    """A smooth fitness with one optimum at BEST (1.0 + 0.4 = 1.4 there)."""
    score = 1.0
    for name, best in BEST.items():
        score += 0.1 - 0.04 * abs(SPACE[name].index(p[name]) - SPACE[name].index(best))
    return score


class FakeEvaluator:
    """Fitness from the landscape; chosen points fail the way real ones do."""

    def __init__(self, invalid=lambda p: None, fitness=landscape, clock=None, step=1.0):
        self.invalid, self.fitness, self.calls, self.clock, self.step = invalid, fitness, [], clock, step

    def __call__(self, cand):
        self.calls.append(cand)
        if self.clock is not None:
            self.clock[0] += self.step
        why = self.invalid(cand.params)
        if why == "raise":
            raise RuntimeError("worker protocol broke")
        if why:
            return Result.invalid(cand, why.split(":")[0], why)
        fit = self.fitness(cand.params)
        return Result(cand.params, cand.generation, cand.origin, True, median_us=100.0 / fit, fitness=fit)


def run(settings, evaluator=None, **kw):
    evaluator = evaluator or FakeEvaluator()
    kw.setdefault("heuristic", HEURISTIC)
    return search(SPACE, evaluator, settings, bucket="bf16/d128/causal/s4096", **kw), evaluator


def test_generation_zero_is_the_heuristic_then_random_valid_points():
    out, ev = run(Settings(population=6, elites=3, generations=1, budget=None, patience=None))
    assert [c.origin for c in ev.calls] == ["heuristic"] + ["random"] * 5
    assert ev.calls[0].params == HEURISTIC
    assert all(c.generation == 0 for c in ev.calls) and out.stop == "generations"
    assert len({c.key for c in ev.calls}) == 6


def test_later_generations_breed_from_the_elites_inside_the_space():
    out, ev = run(Settings(population=6, elites=3, generations=4, budget=None, patience=None, seed=3))
    later = [c for c in ev.calls if c.generation > 0]
    assert later and {c.origin for c in later} <= {"mutation", "crossover", "random"}
    assert "mutation" in {c.origin for c in later} and "crossover" in {c.origin for c in later}
    assert all(sp.in_space(c.params, SPACE) for c in ev.calls)
    elites = out.elites(3)
    assert [r.fitness for r in elites] == sorted((r.fitness for r in out.valid), reverse=True)[:3]
    # Mutants are 1-2 parameters away from a parent that was an elite when they were bred.
    for c in later:
        if c.origin == "mutation":
            earlier = rank([r for r in out.valid if r.generation < c.generation])[:3]
            dist = min(sum(c.params[k] != e.params[k] for k in SPACE) for e in earlier)
            assert 1 <= dist <= 2


def test_the_search_improves_on_the_heuristic():
    out, _ = run(Settings(population=8, elites=4, generations=12, budget=60, patience=None, seed=1))
    assert out.best.fitness > out.heuristic.fitness
    assert out.best.params == BEST  # found the optimum within 60 of 192 points
    assert out.best_by_generation == sorted(out.best_by_generation)  # best-so-far never drops


def test_budget_counts_evaluations_and_nothing_is_evaluated_twice():
    out, ev = run(Settings(population=5, elites=2, generations=100, budget=13, patience=None))
    assert len(ev.calls) == 13 and out.stop == "budget"
    assert len({c.key for c in ev.calls}) == 13


def test_patience_stops_a_flat_search():
    ev = FakeEvaluator(fitness=lambda p: 1.0)
    out, _ = run(Settings(population=4, elites=2, generations=50, budget=None, patience=2), ev)
    assert out.stop == "patience"
    assert max(c.generation for c in ev.calls) == 2  # gen 0 sets the best; gens 1, 2 add nothing


def test_deadline_stops_between_candidates():
    clock = [0.0]
    ev = FakeEvaluator(clock=clock, step=1.0)
    out, _ = run(Settings(population=4, elites=2, generations=50, budget=None, patience=None), ev,
                 deadline=5.5, clock=lambda: clock[0])
    assert out.stop == "time" and len(ev.calls) == 6


def test_a_small_space_is_exhausted():
    tiny = {"block_m": (16, 32), "num_warps": (4, 8)}
    ev = FakeEvaluator(fitness=lambda p: p["block_m"] / 16)
    out = search(tiny, ev, Settings(population=3, elites=2, generations=50, budget=100, patience=None),
                 bucket="b", heuristic={"block_m": 16, "num_warps": 4})
    assert out.stop == "exhausted" and len(ev.calls) == 4


def test_constraints_prune_before_evaluation():
    check = lambda p: "shared memory: too big" if p["block_n"] == 128 else None  # noqa: E731
    out, ev = run(Settings(population=8, elites=3, generations=5, budget=None, patience=None), check=check)
    assert ev.calls and all(c.params["block_n"] != 128 for c in ev.calls)
    assert out.pruned and set(out.pruned.values()) == {"shared memory: too big"}
    assert out.pruned_by_reason() == {"shared memory": len(out.pruned)}


def test_invalid_candidates_are_recorded_not_fatal():
    def invalid(p):
        if p["num_stages"] == 4:
            return "compile: OutOfResources: shared memory"
        if p["num_warps"] == 2:
            return "raise"  # the evaluator itself blows up
        if p["block_m"] == 16:
            return "correctness: NaN in output"
        return None

    out, ev = run(Settings(population=8, elites=3, generations=4, budget=None, patience=None, seed=2),
                  FakeEvaluator(invalid=invalid))
    bad = [r for r in out.results if not r.valid]
    assert {r.stage for r in bad} >= {"compile", "worker", "correctness"}
    assert any("worker protocol broke" in r.reason for r in bad)
    assert out.best is not None and all(r.valid for r in out.elites(3))
    assert len(out.results) == len(ev.calls)


def test_seeds_join_generation_zero():
    seed = {"block_m": 128, "block_n": 64, "num_warps": 8, "num_stages": 3}
    _, ev = run(Settings(population=4, elites=2, generations=1, budget=None, patience=None), seeds=[seed])
    assert [c.origin for c in ev.calls[:2]] == ["heuristic", "seed"] and ev.calls[1].params == seed


@pytest.mark.parametrize("cut", [1, 7, 9, 16])
def test_resume_continues_exactly_where_the_log_stopped(cut):
    settings = Settings(population=6, elites=3, generations=10, budget=20, patience=None, seed=5)
    whole, _ = run(settings)
    first, _ = run(Settings(**{**settings.__dict__, "budget": cut}))
    # Through the log's JSON form, as --resume reads it.
    history = [Result.from_json(json.loads(json.dumps(r.to_json()))) for r in first.results]
    ev = FakeEvaluator()
    resumed, _ = run(settings, ev, history=history)
    assert [r.key for r in resumed.results] == [r.key for r in whole.results]
    assert len(ev.calls) == 20 - cut  # nothing from the log is evaluated again
    assert resumed.best.key == whole.best.key and resumed.stop == whole.stop


def test_settings_reject_nonsense():
    with pytest.raises(ValueError, match="--population must be >= 1, got 0"):
        Settings(population=0)
    with pytest.raises(ValueError, match="--budget"):
        Settings(budget=-1)
