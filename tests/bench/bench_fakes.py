"""Fake timers and fake providers for the bench tests."""

import torch

from flashcore.bench.cases import Case
from flashcore.bench.providers import FlashcoreProvider, Provider


class FixedTimer:
    """Every call costs ``us`` microseconds; the body still runs."""

    name = "fake-fixed"

    def __init__(self, us: float = 100.0):
        self.us = us
        self.sampled_calls = 0

    def sample(self, body, calls):
        for j in range(calls):
            body(j)
        self.sampled_calls += calls
        return self.us * calls

    def sync(self):
        pass

    def hold(self, us):
        pass


class Clock:
    now = 0.0


class ClockTimer:
    """Elapsed time is whatever the providers add to ``clock.now`` while running."""

    name = "fake-clock"

    def __init__(self, clock: Clock):
        self.clock = clock

    def sample(self, body, calls):
        start = self.clock.now
        for j in range(calls):
            body(j)
        return self.clock.now - start

    def sync(self):
        pass

    def hold(self, us):
        pass


class Costed(FlashcoreProvider):
    """The reference backend under another name; each run adds ``cost_us`` to a fake clock."""

    def __init__(self, name, clock, cost_us):
        super().__init__("reference")
        self.name, self.clock, self.cost_us = name, clock, cost_us

    def run(self):
        self.clock.now += self.cost_us
        return super().run()


class Raising(Provider):
    def __init__(self, name="boom", exc=None):
        self.name = name
        self.exc = exc or RuntimeError("boom: kernel exploded")

    def run(self):
        raise self.exc


class Constant(Provider):
    """Wrong on purpose: returns zeros (or NaN) of the output's shape."""

    def __init__(self, name="zeros", value=0.0):
        self.name, self.value = name, value

    def run(self):
        return torch.full_like(self.q, self.value)


TINY = Case(1, 2, 16, 16, dtype=torch.float16)
TINY_CAUSAL = Case(1, 2, 16, 16, causal=True, dtype=torch.float16)
