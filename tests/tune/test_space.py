"""The kernel-family adapter and the point operators (sampling, mutation, crossover)."""

import random
import sys
import types
from dataclasses import dataclass

import pytest
import torch
from hypothesis import given, settings
from hypothesis import strategies as st

from flashcore.bench.cases import Case
from flashcore.kernels import triton_fwd
from flashcore.tune import space as sp

CASE = Case(2, 16, 4096, 128, causal=True, dtype=torch.bfloat16)
SPACE = {"block_m": (16, 32, 64, 128), "block_n": (16, 32, 64), "num_warps": (2, 4, 8), "flag": (False, True)}


def test_triton_fwd_family_is_read_from_the_module():
    fam = sp.load_family()
    assert fam.space == {k: tuple(v) for k, v in triton_fwd.SEARCH_SPACE.items()}
    assert fam.config_cls is triton_fwd.Config
    # The heuristic's arguments are bound by name from the case facts, B*Hq included.
    want = triton_fwd.heuristic_config(90, 128, 2, True, 4096, 4096, 2 * 16)
    assert fam.heuristic(CASE, 90) == fam.params_of(want)
    assert fam.make(fam.heuristic(CASE, 90)) == want
    small = Case(1, 8, 512, 64, causal=True, dtype=torch.float16)  # the seed shape: under one wave
    assert fam.heuristic(small, 90) == fam.params_of(triton_fwd.heuristic_config(90, 64, 2, True, 512, 512, 8))


def _module(name, **attrs):
    mod = types.ModuleType(name)
    mod.__dict__.update(attrs)
    sys.modules[name] = mod
    return name


def test_a_new_parameter_needs_no_search_change(monkeypatch):
    # A family with a parameter the tuner has never heard of (warp specialisation).
    @dataclass(frozen=True)
    class Config:
        block_m: int = 64
        warp_specialize: bool = False

    name = _module("fake_hopper_family", SEARCH_SPACE={"block_m": (64, 128), "warp_specialize": (False, True)},
                   Config=Config, heuristic_config=lambda arch: Config(),
                   forward=lambda *a, **k: None,
                   constraints=lambda config, arch: "no ws before sm90" if config.warp_specialize and arch < 90 else None)
    fam = sp.load_family(name)
    rng = random.Random(0)
    points = {sp.point_key(sp.mutate(fam.heuristic(CASE, 90), fam.space, rng)) for _ in range(50)}
    assert "block_m=64,warp_specialize=True" in points
    assert fam.check({"block_m": 64, "warp_specialize": True}, CASE, 80) == "no ws before sm90"
    assert fam.check({"block_m": 64, "warp_specialize": True}, CASE, 90) is None


def test_bad_family_modules_get_clear_errors():
    with pytest.raises(sp.SpaceError, match="cannot import"):
        sp.load_family("no_such_module_xyz")
    name = _module("fake_incomplete_family", SEARCH_SPACE={"a": (1,)})
    with pytest.raises(sp.SpaceError, match=r"lacks Config .*heuristic_config .*forward"):
        sp.load_family(name)

    @dataclass(frozen=True)
    class Config:
        a: int = 1

    name = _module("fake_mismatch_family", SEARCH_SPACE={"a": (1,), "b": (2,)}, Config=Config,
                   heuristic_config=lambda: Config(), forward=None)
    with pytest.raises(sp.SpaceError, match=r"\['b'\], which Config lacks"):
        sp.load_family(name)
    name = _module("fake_hook_family", SEARCH_SPACE={"a": (1,)}, Config=Config,
                   heuristic_config=lambda warp_count: Config(), forward=None)
    with pytest.raises(sp.SpaceError, match="asks for \\['warp_count'\\]"):
        sp.load_family(name).heuristic(CASE, 90)
    with pytest.raises(sp.SpaceError, match="rejects"):
        sp.load_family(name).make({"zzz": 3})


points = st.fixed_dictionaries({k: st.sampled_from(v) for k, v in SPACE.items()})


@settings(max_examples=200, deadline=None)
@given(a=points, b=points, seed=st.integers(0, 2**32))
def test_operators_stay_inside_the_space(a, b, seed):
    rng = random.Random(seed)
    child = sp.mutate(a, SPACE, rng)
    changed = [k for k in SPACE if child[k] != a[k]]
    assert sp.in_space(child, SPACE)
    assert 1 <= len(changed) <= 2  # a mutation changes 1 or 2 parameters, never 0
    cross = sp.crossover(a, b, SPACE, rng)
    assert sp.in_space(cross, SPACE)
    assert all(cross[k] in (a[k], b[k]) for k in SPACE)
    assert sp.in_space(sp.sample(SPACE, rng), SPACE)


def test_points_outside_the_space_are_projected_in():
    # A heuristic may pick a value the space lacks (block_m=256): children may not.
    rng = random.Random(1)
    outside = {"block_m": 256, "block_n": 16, "num_warps": 4, "flag": False}
    for _ in range(20):
        assert sp.in_space(sp.mutate(outside, SPACE, rng), SPACE)
        assert sp.in_space(sp.crossover(outside, outside, SPACE, rng), SPACE)


def test_generic_and_triton_fwd_constraints():
    fam = sp.load_family()
    ok = {"block_m": 128, "block_n": 64, "num_warps": 8, "num_stages": 3}
    assert fam.check(ok, CASE, 90) is None  # the sm_90 heuristic itself
    assert "tl.dot" in sp.generic_constraints({"block_m": 8})
    # 4 stages of 128-wide K and V tiles at D=128: >= 192 KB, over sm_89's 99 KB.
    big = {**ok, "block_n": 128, "num_stages": 4}
    assert "shared memory" in fam.check(big, CASE, 89)
    # On sm_90 it compiles to 288 KB, but the static floor (192 KB) cannot prove that:
    # the compile stage rejects it (test_worker: offline compile for sm_90).
    assert fam.check(big, CASE, 90) is None
    assert fam.check({**ok, "block_n": 64, "num_stages": 2}, CASE, 89) is None
    assert "register pressure" in fam.check({**ok, "block_n": 128, "num_warps": 2, "num_stages": 1}, CASE, 90)


def test_gluon_family_searches_the_causal_tail_only_where_it_orders_items():
    """``causal_tail`` is a search parameter like any other: the heuristic's value comes back
    by name, and the family's constraints (bound with the case's ``causal``) prune it on full
    rows, where every value runs the same launch."""
    fam = sp.load_family("gluon")
    assert 0 in fam.space["causal_tail"] and max(fam.space["causal_tail"]) > 1
    causal = Case(16, 16, 1024, 96, causal=True, dtype=torch.bfloat16)
    full = Case(16, 16, 1024, 96, causal=False, dtype=torch.bfloat16)
    point = fam.heuristic(causal, 90)
    assert point["causal_tail"] == 2  # tail_waves at D=96, 1k keys
    assert fam.check({**point, "causal_tail": 3}, causal, 90) is None
    assert "full rows ignore it" in fam.check({**point, "causal_tail": 3}, full, 90)
    assert fam.make({**point, "causal_tail": 3}).causal_tail == 3
