import pytest
import torch

from flashcore.bench.cases import (
    PRESETS, Case, both_causal, filter_causal, flops, io_bytes, parse_shape, preset, visible_pairs,
)
from flashcore.bench.providers import bottom_right_mask


def test_seed_preset():
    cases = preset("seed")
    assert {(c.batch, c.causal) for c in cases} == {(1, False), (1, True), (2, False), (2, True)}
    assert all((c.heads_q, c.seq_q, c.head_dim, c.dtype) == (8, 512, 64, torch.float16) for c in cases)


@pytest.mark.parametrize("dtype", [None, torch.float16])
def test_standard_preset(dtype):
    cases = preset("standard", dtype)
    assert len(cases) == 6 * 2 * 2
    assert all(c.batch * c.seq_q == 16384 and c.heads_q * c.head_dim == 2048 for c in cases)
    assert {c.seq_q for c in cases} == {512, 1024, 2048, 4096, 8192, 16384}
    assert {(c.head_dim, c.heads_q) for c in cases} == {(64, 32), (128, 16)}
    assert {c.dtype for c in cases} == {dtype or torch.bfloat16}
    assert sum(c.causal for c in cases) == len(cases) // 2


def test_gqa_preset():
    cases = preset("gqa")
    assert all((c.heads_q, c.hkv, c.head_dim) == (32, 8, 128) and c.batch * c.seq_q == 16384 for c in cases)
    assert {c.seq_q for c in cases} == {1024, 2048, 4096, 8192, 16384}


def test_odd_preset():
    cases = preset("odd")
    assert {c.seq_q for c in cases} == {1, 17, 1000, 3000}
    assert {c.head_dim for c in cases} == {32, 80, 96, 256}


def test_dims_preset_covers_the_head_dims_between_and_beyond_the_builds_at_scale():
    cases = preset("dims")
    assert {c.head_dim for c in cases} == {32, 48, 80, 96, 256}
    assert all(c.batch * c.seq_q == 16384 and c.dtype == torch.bfloat16 for c in cases)
    assert {c.seq_q for c in cases} == {1024, 4096} and {c.causal for c in cases} == {False, True}


def test_tiny_preset_is_small():
    assert all(c.batch * c.heads_q * c.seq_q * c.sk <= 2**16 for c in preset("tiny"))
    assert any(c.seq_q != c.sk and c.causal for c in preset("tiny"))
    assert any(c.hkv != c.heads_q for c in preset("tiny"))


def test_unknown_preset_names_the_choices():
    with pytest.raises(ValueError, match="unknown preset 'huge'.*seed, standard"):
        preset("huge")
    assert set(PRESETS) == {"seed", "standard", "gqa", "odd", "dims", "tiny"}


@pytest.mark.parametrize("text, expected", [
    ("2,16,1024,128", Case(2, 16, 1024, 128)),
    ("2, 32, 1024, 128, 8", Case(2, 32, 1024, 128, heads_kv=8)),
    ("1,8,100,64,8,300", Case(1, 8, 100, 64, heads_kv=8, seq_k=300)),
])
def test_parse_shape(text, expected):
    assert parse_shape(text) == expected


@pytest.mark.parametrize("text, message", [
    ("1,2,3", "4 to 6 integers"),
    ("1,2,3,4,5,6,7", "4 to 6 integers"),
    ("1,x,3,4", "integers"),
    ("0,2,3,4", "B must be >= 1"),
    ("1,2,3,0", "D must be >= 1"),
    ("1,6,8,16,4", r"multiple of Hkv \(4\)"),
])
def test_parse_shape_errors(text, message):
    with pytest.raises(ValueError, match=message):
        parse_shape(text)


def test_causal_filter_and_expansion():
    cases = both_causal(Case(1, 1, 4, 16))
    assert [c.causal for c in cases] == [False, True]
    assert filter_causal(cases, "on") == [cases[1]]
    assert filter_causal(cases, "off") == [cases[0]]
    assert filter_causal(cases, "both") == cases


def brute_force_pairs(sq, sk, causal):
    if not causal:
        return sq * sk
    return int(bottom_right_mask(sq, sk, "cpu").sum())


@pytest.mark.parametrize("sq", [0, 1, 2, 5, 17, 64])
@pytest.mark.parametrize("sk", [0, 1, 3, 17, 40])
@pytest.mark.parametrize("causal", [False, True])
def test_visible_pairs_match_the_mask(sq, sk, causal):
    assert visible_pairs(sq, sk, causal) == brute_force_pairs(sq, sk, causal)


def test_flops_formulas():
    assert flops(Case(2, 4, 128, 64)) == 4 * 2 * 4 * 64 * 128 * 128
    # Sq == Sk: S(S+1)/2 pairs.
    assert flops(Case(1, 1, 512, 64, causal=True)) == 4 * 64 * 512 * 513 // 2
    # Sq < Sk: (2Sk - Sq + 1) Sq / 2.
    assert visible_pairs(100, 300, True) == (2 * 300 - 100 + 1) * 100 // 2
    # Sq > Sk: the first Sq - Sk rows see nothing, the rest Sk(Sk+1)/2.
    assert visible_pairs(300, 100, True) == 100 * 101 // 2
    assert flops(Case(1, 1, 0, 64)) == 0


def test_io_bytes():
    assert io_bytes(Case(1, 4, 8, 16, heads_kv=2, seq_k=32, dtype=torch.float16)) == (2 * 4 * 8 * 16 + 2 * 2 * 32 * 16) * 2
