"""check_provider: the correctness rule applied to providers, KernelBench style."""

import pytest
import torch

from flashcore.bench import correctness
from flashcore.bench.cases import Case
from flashcore.bench.correctness import ReferenceCache, check_provider, reference_dtype, set_magnitude
from flashcore.bench.providers import FlashcoreProvider, Provider

from bench_fakes import TINY, TINY_CAUSAL, Constant


@pytest.mark.parametrize("case", [TINY, TINY_CAUSAL, Case(1, 4, 9, 16, heads_kv=2, seq_k=21, causal=True)],
                         ids=["full", "causal", "gqa-sq<sk"])
def test_reference_provider_is_correct(case):
    result = check_provider(FlashcoreProvider("reference"), case, "cpu", sets=5)
    assert result.correct and result.sets == 5 and len(result.verdicts) == 5
    # Errors are against the unrounded fp64 answer: bf16 output rounding of the x10 set is ~0.03.
    assert 0 <= result.max_abs_err < 0.1 and 0 <= result.rel_err < 1e-2


def test_wrong_output_is_incorrect():
    result = check_provider(Constant("zeros", 0.0), TINY, "cpu", sets=3)
    assert not result.correct
    assert result.reason.startswith("set 0: error over budget")


def test_nan_output_never_passes():
    result = check_provider(Constant("nan", float("nan")), TINY, "cpu", sets=2)
    assert not result.correct and "NaN" in result.reason
    assert result.max_abs_err == float("inf")


class SlightlyOff(FlashcoreProvider):
    """Right on ordinary inputs, wrong when the scores are large (the x10 set)."""

    def __init__(self):
        super().__init__("reference")

    def run(self):
        out = super().run()
        return out + 0.5 if self.q.abs().max() > 20 else out


def test_the_last_set_is_scaled_by_ten():
    cache = ReferenceCache("cpu")
    assert [set_magnitude(i, 5) for i in range(5)] == [1, 1, 1, 1, 10]
    assert set_magnitude(0, 1) == 1  # a single set stays at 1
    small, large = cache.get(TINY, 0, 5), cache.get(TINY, 4, 5)
    assert large.magnitude == 10 and large.q.float().std() > 5 * small.q.float().std()
    result = check_provider(SlightlyOff(), TINY, "cpu", sets=5, cache=cache)
    assert not result.correct and result.reason.startswith("set 4:")


def test_sets_are_fresh_and_independent():
    cache = ReferenceCache("cpu")
    a, b = cache.get(TINY, 0, 5), cache.get(TINY, 1, 5)
    assert not torch.equal(a.q, b.q)
    assert not torch.equal(a.q, a.k) and not torch.equal(a.k, a.v)


def test_output_is_poisoned_before_every_run(monkeypatch):
    events = []
    monkeypatch.setattr(correctness, "poison_allocator", lambda case, device: events.append("poison"))

    class Recorder(FlashcoreProvider):
        def run(self):
            events.append("run")
            return super().run()

    check_provider(Recorder("reference"), TINY, "cpu", sets=3)
    assert events == ["poison", "run"] * 3


def test_references_are_shared_between_providers(monkeypatch):
    cache = ReferenceCache("cpu")
    builds = []
    original = cache._build
    monkeypatch.setattr(cache, "_build", lambda *a: builds.append(a) or original(*a))
    for _ in range(3):
        check_provider(FlashcoreProvider("reference"), TINY, "cpu", sets=2, cache=cache)
    assert len(builds) == 2
    check_provider(FlashcoreProvider("reference"), TINY_CAUSAL, "cpu", sets=2, cache=cache)
    assert len(builds) == 4 and set(cache.sets) == {(0, 2), (1, 2)}  # only the current case is kept


def test_reference_precision():
    assert reference_dtype(Case(64, 32, 16384, 128), "cpu") == torch.float64
    assert reference_dtype(Case(1, 8, 512, 64), "cuda") == torch.float64
    assert reference_dtype(Case(1, 16, 16384, 128), "cuda") == torch.float32


def test_provider_errors_propagate():
    class Broken(Provider):
        name = "broken"

        def run(self):
            raise RuntimeError("no")

    with pytest.raises(RuntimeError, match="no"):
        check_provider(Broken(), TINY, "cpu", sets=1)
    with pytest.raises(ValueError, match="sets must be >= 1"):
        check_provider(Broken(), TINY, "cpu", sets=0)
