"""Fixtures for the bench tests; the fakes themselves live in bench_fakes.py."""

import pytest

from flashcore.bench import providers


@pytest.fixture
def register(monkeypatch):
    """Register factories in the provider registry for one test."""

    def add(name, factory):
        monkeypatch.setitem(providers.REGISTRY, name, factory)

    return add
