"""The Gluon sm_90 kernel: offline compile and dispatch facts on CPU, correctness on an H100.

Gluon has no interpreter, so on CPU the kernel is only compiled (for sm_90a, with
Triton's bundled ptxas); the numerical checks need the GPU.
"""

import dataclasses
import pytest
import torch

from flashcore import attention, dispatch
from flashcore.bench.cases import Case
from flashcore.bench.correctness import judge, make_inputs, poisoned_like
from flashcore.kernels import causal_plan
from flashcore.kernels import gluon_fwd as gf
from flashcore.kernels import launch

HAS_SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)
sm90 = pytest.mark.skipif(not HAS_SM90, reason="gpu tier: needs an sm_90 GPU")

CASES = [
    Case(1, 2, 1, 128, seq_k=1, dtype=torch.bfloat16),
    Case(2, 3, 7, 64, causal=True, dtype=torch.float16),
    Case(1, 4, 257, 128, causal=True, dtype=torch.bfloat16),
    Case(1, 4, 1000, 64, causal=True, dtype=torch.float16),
    Case(2, 4, 100, 128, seq_k=1000, causal=True, dtype=torch.bfloat16),
    Case(2, 4, 1000, 128, seq_k=100, causal=True, dtype=torch.float16),  # rows with no key
    Case(2, 16, 777, 64, heads_kv=4, seq_k=1500, causal=True, dtype=torch.bfloat16),
    Case(2, 16, 1024, 128, heads_kv=4, causal=False, dtype=torch.bfloat16, layout="bshd"),
    # D=64, for three consumer warpgroups (192-row tiles: whole warpgroups past Sq, 1 row
    # of 192, a diagonal crossing warpgroups, Sq != Sk both ways, GQA).
    Case(1, 2, 1, 64, seq_k=257, dtype=torch.bfloat16),
    Case(2, 3, 257, 64, seq_k=1, dtype=torch.float16),
    Case(1, 4, 257, 64, causal=True, dtype=torch.bfloat16),
    Case(2, 4, 1000, 64, seq_k=100, causal=True, dtype=torch.bfloat16),  # rows with no key
    Case(2, 4, 100, 64, seq_k=1000, causal=True, dtype=torch.float16),
    Case(2, 16, 1000, 64, heads_kv=2, seq_k=777, dtype=torch.float16, layout="bshd"),
]
STREAM_K_CONFIG = gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True)
CAUSAL_PLAN_CONFIG = STREAM_K_CONFIG  # causal launches of it run by a plan (causal_plan)
CONFIGS = [gf.Config(128, 128, 8, 2, True), gf.Config(128, 128, 8, 3, True), gf.Config(64, 128, 4, 2),
           gf.Config(128, 64, 8, 3), gf.Config(64, 64, 4, 2),
           gf.Config(64, 32, 4, 2), gf.Config(64, 64, 4, 1),  # the short causal shapes' stage 1 (one stage: no ring)
           # Three consumer warpgroups (D=64 only, see constraints) and ping-pong turns.
           gf.Config(192, 128, 12, 2, True), gf.Config(192, 128, 12, 2, True, True),
           gf.Config(192, 128, 12, 3, True, True), gf.Config(192, 64, 12, 3, True, True),
           gf.Config(128, 128, 8, 2, True, True),
           gf.Config(128, 128, 8, 3, True, True),
           # Persistent CTAs: items of different lengths per CTA, ring and turns running on.
           gf.Config(128, 128, 8, 2, True, persistent=True), gf.Config(128, 64, 8, 3, True, persistent=True),
           gf.Config(192, 128, 12, 2, True, True, persistent=True),
           # Stream-K (full only; causal launches ignore it): the 1024-row GQA case cuts items.
           STREAM_K_CONFIG,
           # Keys split between warpgroups (small grids): 2-4 rings, a warpgroup with only a
           # masked tile (Sk=1, causal rows that see one tile), rows with no key at all.
           gf.Config(64, 128, 8, 1, True, split_kv=2), gf.Config(64, 64, 8, 2, True, split_kv=2),
           gf.Config(64, 64, 12, 1, True, split_kv=3), gf.Config(64, 64, 16, 2, True, split_kv=4),
           # Keys split across CTAs (stage 1, merged through global memory by the last CTA):
           # a CTA with only a masked tile, rows with no key, 3 parts of uneven length.
           gf.Config(64, 128, 4, 2, kv_ctas=2), gf.Config(64, 64, 4, 2, kv_ctas=3),
           gf.Config(64, 128, 4, 3, kv_ctas=4),
           # O rescaled every tile, as the small grids' heuristic launches stage 1 and both splits.
           gf.Config(64, 128, 4, 2, lazy_rescale=False), gf.Config(64, 64, 8, 2, True, split_kv=2, lazy_rescale=False),
           gf.Config(64, 128, 4, 2, kv_ctas=2, lazy_rescale=False)]
# The lazy rescale with a row max on every tile (max_free off): the persistent tiles and stage 1.
CONFIGS += [gf.Config(128, 128, 8, 2, True, persistent=True, max_free=False),
            gf.Config(192, 128, 12, 3, True, True, persistent=True, max_free=False),
            gf.Config(64, 128, 4, 2, max_free=False)]
# Unmasked tiles without a row max (their sums checked instead; the default): the shipped tiles and stage 1.
MAX_FREE_CONFIGS = [gf.Config(128, 128, 8, 2, True, persistent=True),
                    gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True),
                    gf.Config(192, 128, 12, 3, True, True, persistent=True),
                    gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True),
                  gf.Config(192, 64, 12, 2, True, True, persistent=True),  # D=80/96 full from 2k keys
                    gf.Config(128, 128, 8, 2, True, True), gf.Config(64, 128, 4, 2), gf.Config(64, 64, 4, 2),
                    gf.Config(64, 32, 4, 2), gf.Config(64, 128, 4, 2, kv_ctas=2),
                    gf.Config(64, 64, 8, 2, True, split_kv=2)]
# The row sums from the packed P (``packed_sums``: 1 its own asm, 2 inside the sum check): the
# spill-free tiles it was measured on (D=128 causal 128x128, full 192x64, D=64 full 192x128, stage 1).
MAX_FREE_CONFIGS += [dataclasses.replace(c, packed_sums=n) for n in (1, 2) for c in (
    gf.Config(128, 128, 8, 2, True, persistent=True), gf.Config(192, 64, 12, 2, True, True, persistent=True),
    gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True), gf.Config(64, 32, 4, 2),
    gf.Config(128, 128, 8, 2, True, True, persistent=True))]
# The D=32 build's causal rows drawn whole on 192x128 (``causal_packed_sums``).
MAX_FREE_CONFIGS += [gf.Config(192, 128, 12, 3, True, True, persistent=True, packed_sums=2)]
# D=128's causal rows from 2k keys: three stages, each warpgroup stopping at its own diagonal tile.
MAX_FREE_CONFIGS += [gf._THREE_WARPGROUPS_CAUSAL_64]
# Masked tiles max-free too (``masked_free``): rows with no key yet, diagonals crossing warpgroups,
# the Sk tail, key splits between warpgroups and CTAs, stream-K pieces and causal plans.
MASKED_FREE_CONFIGS = [dataclasses.replace(c, masked_free=True) for c in (
    gf.Config(64, 128, 4, 2), gf.Config(64, 64, 4, 2), gf.Config(64, 32, 4, 2), gf.Config(64, 128, 4, 2, kv_ctas=2),
    gf.Config(64, 64, 8, 2, True, split_kv=2), gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True),
    gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True, packed_sums=2),
    gf.Config(128, 128, 8, 2, True, True, persistent=True, packed_sums=1), gf._THREE_WARPGROUPS_CAUSAL_64)]
MAX_FREE_CONFIGS += MASKED_FREE_CONFIGS


def _with(configs, more):
    """configs, then those of more it lacks (max_free being the default, many are there already)."""
    return configs + [c for c in more if c not in configs]


CONFIGS = _with(CONFIGS, MAX_FREE_CONFIGS)


def _config_id(c):
    return (f"{c.block_m}x{c.block_n}s{c.num_stages}{'-ws' if c.warp_specialize else ''}"
            f"{'-pp' if c.pingpong else ''}{'-persistent' if c.persistent else ''}"
            f"{f'-split{c.split_kv}' if c.split_kv > 1 else ''}{f'-ctas{c.kv_ctas}' if c.kv_ctas > 1 else ''}"
            f"{'' if c.lazy_rescale else '-eager'}{'-streamk' if c.stream_k else ''}"
            f"{'-maxfree' if gf.lazy_level(c) >= gf.MAX_FREE.value else ''}"
            f"{f'-packed{c.packed_sums}' if gf._level.fn(gf.lazy_level(c)) > gf.MAX_FREE.value else ''}"
            f"{'-maskedfree' if gf.lazy_level(c) >= gf.MASKED_FREE.value else ''}")


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS, ids=_config_id)
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label().replace(" ", "-"))
def test_against_reference(case, config):
    if gf.constraints(config, case.head_dim):
        pytest.skip(gf.constraints(config, case.head_dim))
    q, k, v = make_inputs(case, "cuda", seed=5)
    assert gf.supports(q, k, v, 90) is None
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, case.causal, case.head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, lse=lse.cpu())
    assert verdict.ok, f"{case.label()} {config}: {verdict}"


# Head dims between the builds (zero-filled columns past D): every kind of launch, odd
# lengths, Sq != Sk both ways, GQA, rows with no key, a bshd layout.
PADDED_CASES = [
    Case(2, 4, 1000, 96, causal=True, dtype=torch.bfloat16),
    Case(2, 4, 257, 80, seq_k=1000, dtype=torch.float16),
    Case(2, 4, 1000, 120, seq_k=100, causal=True, dtype=torch.bfloat16),  # rows with no key
    Case(1, 16, 777, 72, heads_kv=4, seq_k=1500, causal=True, dtype=torch.bfloat16),
    Case(2, 8, 1024, 96, heads_kv=2, dtype=torch.bfloat16, layout="bshd"),
    Case(2, 4, 1000, 40, causal=True, dtype=torch.bfloat16),
    Case(2, 8, 777, 48, heads_kv=2, seq_k=1500, dtype=torch.float16, layout="bshd"),
    Case(1, 2, 1, 56, seq_k=513, dtype=torch.bfloat16),
    Case(2, 4, 1000, 112, heads_kv=2, causal=True, dtype=torch.bfloat16),  # three S chunks
    # The D=32 build, and D=24 and D=16 padded to it (D=16: one 16-column S chunk).
    Case(2, 4, 1000, 32, causal=True, dtype=torch.bfloat16),
    Case(2, 8, 300, 24, heads_kv=4, dtype=torch.bfloat16, layout="bshd"),
    Case(2, 4, 1000, 16, seq_k=700, causal=True, dtype=torch.float16),
    Case(1, 8, 257, 16, heads_kv=2, dtype=torch.bfloat16, layout="bshd"),
    # D=256 and a head dim padded to it.
    Case(2, 4, 1000, 256, causal=True, dtype=torch.bfloat16),
    Case(1, 8, 257, 256, heads_kv=2, seq_k=700, dtype=torch.float16),
    Case(2, 4, 1000, 200, seq_k=100, causal=True, dtype=torch.bfloat16),  # rows with no key
    Case(1, 4, 513, 240, causal=True, dtype=torch.bfloat16),  # four S chunks
    Case(2, 4, 300, 144, heads_kv=2, dtype=torch.float16),
    Case(2, 8, 300, 256, heads_kv=4, dtype=torch.bfloat16, layout="bshd"),
]
PADDED_CONFIGS = [gf.Config(64, 128, 4, 2), gf.Config(64, 64, 4, 1), gf.Config(64, 32, 4, 2),
                  gf.Config(128, 128, 8, 2, True, persistent=True), STREAM_K_CONFIG,
                  gf.Config(128, 128, 8, 2, True, True), gf.Config(192, 128, 12, 3, True, True, persistent=True),
                  gf.Config(128, 128, 8, 2, True, True, persistent=True),  # where stage 1 lags (D=104, 120)
                  gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True),
                  gf.Config(192, 64, 12, 2, True, True, persistent=True),
                  gf._THREE_WARPGROUPS_64,  # D=80/96 full from 2k keys (packed sums)
                  gf._THREE_WARPGROUPS_CAUSAL_64,  # D=97-120 causal from 2k keys, D=72-80 4k, D=81-96 8k
                  # D=72-96 full rows under 2k keys: turns with O in parts, packed sums.
                  gf.Config(128, 128, 8, 2, True, True, persistent=True, packed_sums=2),
                  gf.Config(64, 64, 8, 2, True, split_kv=2, lazy_rescale=False),
                  gf.Config(64, 128, 4, 2, kv_ctas=2, lazy_rescale=False),
                  # D=256's: two warpgroups on 128x64 tiles, and stage 1's 64x64 (small grids);
                  # keys split across CTAs, merged a column block at a time above D=128.
                  gf.Config(128, 64, 8, 2, True), gf.Config(64, 64, 4, 2), gf.Config(64, 64, 4, 2, kv_ctas=4),
                  gf.Config(64, 32, 4, 2, kv_ctas=3)]


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("config", PADDED_CONFIGS, ids=_config_id)
@pytest.mark.parametrize("case", PADDED_CASES, ids=lambda c: c.label().replace(" ", "-"))
def test_head_dims_between_the_builds_against_reference(case, config):
    if gf.constraints(config, case.head_dim):
        pytest.skip(gf.constraints(config, case.head_dim))
    q, k, v = make_inputs(case, "cuda", seed=7)
    assert gf.supports(q, k, v, 90) is None
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, case.causal, case.head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, lse=lse.cpu())
    assert verdict.ok, f"{case.label()} {config}: {verdict}"


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("config", [gf.Config(64, 128, 4, 2), STREAM_K_CONFIG, gf.Config(128, 64, 8, 2, True)],
                         ids=_config_id)
@pytest.mark.parametrize("head_dim,width", [(96, 128), (48, 64), (200, 256), (24, 32), (16, 32)])
def test_padded_columns_come_from_the_zero_fill_not_from_memory_past_d(head_dim, width, config):
    """q, k, v as the first D columns of wider tensors whose other columns hold NaN: the
    kernel must see zeros there (TMA's fill past the descriptor's D), and O's store must
    leave the columns past D of a wider output untouched."""
    if gf.constraints(config, head_dim):
        pytest.skip(gf.constraints(config, head_dim))
    case = Case(2, 4, 1000, head_dim, heads_kv=2, seq_k=700, causal=True, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, "cuda", seed=11)
    wide = [torch.full((*t.shape[:3], width), float("nan"), device="cuda", dtype=t.dtype) for t in (q, k, v, q)]
    for w, t in zip(wide, (q, k, v)):
        w[..., :head_dim] = t
    qs, ks, vs, out = (w[..., :head_dim] for w in wide)
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    gf.forward(qs, ks, vs, True, head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu())
    assert verdict.ok, f"{case.label()} {config}: {verdict}"
    assert torch.isnan(wide[3][..., head_dim:]).all()  # past D: not written


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("head_dim", [16, 24, 32, 48, 96, 256])
def test_auto_takes_gluon_for_head_dims_between_the_builds(head_dim):
    q, k, v = make_inputs(Case(2, 8, 1024, head_dim, causal=True, dtype=torch.bfloat16), "cuda", seed=3)
    assert dispatch.kernel_for("auto", q, k, v, True) == "gluon"
    out = attention(q, k, v, causal=True)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True).ok


def _tiles(config):
    """Auto's config without ``masked_free``: the part the tile rules pick (``masked_free_pays``
    adds it last, and has tests of its own)."""
    return dataclasses.replace(config, masked_free=False)


def _auto_checked(case, seed):
    """Auto's Gluon config for ``case``, once auto has picked Gluon and ``flashcore.attention``
    (which runs it) has matched the reference on fresh inputs."""
    q, k, v = make_inputs(case, "cuda", seed=seed)
    assert dispatch.kernel_for("auto", q, k, v, case.causal) == "gluon"
    config = gf.heuristic_config(90, case.head_dim, 2, case.causal, q.shape[2], k.shape[2], q.shape[0] * q.shape[1])
    out = attention(q, k, v, causal=case.causal)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal).ok
    return config


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(4, 16, 1000, 40, dtype=torch.bfloat16), Case(4, 16, 777, 56, causal=True, dtype=torch.float16),
    Case(4, 16, 513, 104, heads_kv=4, causal=True, dtype=torch.bfloat16),
    Case(2, 16, 1000, 120, seq_k=1500, causal=True, dtype=torch.bfloat16),
    Case(2, 16, 2000, 48, causal=True, dtype=torch.bfloat16, layout="bshd"),
    Case(4, 32, 1100, 16, causal=True, dtype=torch.float16),  # D=16: three warpgroups, packed sums
    Case(2, 64, 1024, 16, heads_kv=16, seq_k=1500, dtype=torch.bfloat16, layout="bshd"),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_runs_the_warp_specialised_build_where_stage1_lags(case):
    config = _auto_checked(case, seed=13)
    assert _tiles(config) == gf._STAGE1_INSTEAD[gf.padded_head_dim(case.head_dim)]


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(2, 8, 3000, 64, causal=True, dtype=torch.bfloat16),
    Case(1, 16, 2900, 40, heads_kv=4, causal=True, dtype=torch.float16),
    Case(2, 8, 3000, 32, seq_k=3100, causal=True, dtype=torch.bfloat16),
    Case(2, 8, 3000, 56, causal=True, dtype=torch.float16, layout="bshd"),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_runs_three_warpgroup_pairs_where_one_pair_fills_the_sms(case):
    """Every build's pairs sum the packed P (``causal_packed_sums``, v68 for the D=64 build)."""
    config = _auto_checked(case, seed=17)
    assert config.block_m == 192 and config.stream_k and config.packed_sums == 2


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(4, 32, 1000, 64, causal=True, dtype=torch.bfloat16),  # stage 1's 64x64
    Case(4, 32, 1000, 64, seq_k=800, causal=True, dtype=torch.float16),  # rows with no key
    Case(8, 16, 512, 128, seq_k=700, causal=True, dtype=torch.float16),  # D=128's 64x32
    Case(4, 16, 1000, 48, causal=True, dtype=torch.bfloat16, layout="bshd"),  # D=48's 64x64
    Case(2, 16, 3000, 80, heads_kv=4, causal=True, dtype=torch.float16),  # 192x64 on the D=128 build
    Case(2, 8, 3000, 32, seq_k=3100, causal=True, dtype=torch.float16),  # the D=32 build's pairs
    Case(1, 16, 5000, 16, heads_kv=4, causal=True, dtype=torch.bfloat16),  # its drawn 192-row blocks, GQA
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_takes_masked_tiles_max_free_on_causal_rows(case):
    assert _auto_checked(case, seed=59).masked_free


def test_masked_tiles_stay_on_the_row_max_where_max_free_lost():
    """``masked_free_pays``: never full rows, the D=32 build's 64x64, stage 1's 128-key tiles,
    the D=64 build's 192x128 (0.94-0.96 there) or an eager rescale (masked_free needs max_free)."""
    stage1_64 = gf.Config(64, 64, 4, 2)
    assert gf.masked_free_pays(64, True, stage1_64) and gf.masked_free_pays(128, True, gf.Config(64, 32, 4, 2))
    assert not gf.masked_free_pays(48, True, gf._THREE_WARPGROUPS)
    assert not gf.masked_free_pays(64, False, stage1_64)
    assert gf.masked_free_pays(16, True, gf._THREE_WARPGROUPS) and gf.masked_free_pays(32, True, gf._THREE_WARPGROUPS)
    assert not gf.masked_free_pays(32, True, stage1_64)
    assert not gf.masked_free_pays(64, True, gf._STAGE1) and not gf.masked_free_pays(64, True, gf._THREE_WARPGROUPS)
    assert not gf.masked_free_pays(64, True, dataclasses.replace(stage1_64, lazy_rescale=False))
    assert not gf.masked_free_pays(256, True, gf.Config(128, 64, 8, 2, True))


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(1, 32, 8192, 32, heads_kv=8, causal=True, dtype=torch.float16),  # whole items drawn
    Case(2, 8, 3000, 24, causal=True, dtype=torch.bfloat16, layout="bshd"),  # the plan's pairs
    Case(2, 8, 2900, 24, seq_k=3001, causal=True, dtype=torch.float16),  # Sq != Sk
    Case(2, 8, 3000, 16, causal=True, dtype=torch.bfloat16),  # D=16 on the D=32 build
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_sums_the_packed_p_on_causal_d32_rows(case):
    config = _auto_checked(case, seed=53)
    assert config.block_m == 192 and config.packed_sums == 2


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(1, 36, 2048, 128, dtype=torch.bfloat16),
    Case(1, 40, 2100, 128, heads_kv=8, dtype=torch.float16),
    Case(1, 36, 2100, 120, seq_k=2300, dtype=torch.bfloat16),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_runs_192x64_on_full_d128_rows_from_2k_keys(case):
    config = _auto_checked(case, seed=29)
    assert config == gf._THREE_WARPGROUPS_64


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(1, 18, 4096, 128, causal=True, dtype=torch.bfloat16),  # 396 items: three a CTA
    Case(2, 20, 2048, 128, causal=True, dtype=torch.float16),  # one part: from 2k keys
    Case(1, 32, 4100, 128, heads_kv=8, causal=True, dtype=torch.float16),
    Case(1, 20, 4200, 112, seq_k=4500, causal=True, dtype=torch.bfloat16),
    Case(1, 18, 4096, 72, causal=True, dtype=torch.float16),  # O in parts: 64 + 16 columns
    Case(1, 10, 8192, 88, causal=True, dtype=torch.bfloat16),  # 64 + 32 columns: from 8k keys
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_runs_192x64_on_causal_d128_rows_from_2k_keys(case):
    config = _auto_checked(case, seed=31)
    assert _tiles(config) == gf._THREE_WARPGROUPS_CAUSAL_64


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(2, 10, 2100, 96, causal=True, dtype=torch.float16),
    Case(2, 16, 4000, 96, heads_kv=4, causal=True, dtype=torch.bfloat16),
    Case(1, 12, 3000, 96, seq_k=3300, causal=True, dtype=torch.bfloat16, layout="bshd"),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_sums_the_packed_p_in_one_wave_on_causal_d96_turns_from_2k_keys(case):
    config = _auto_checked(case, seed=37)
    assert (config.block_m, config.pingpong, config.packed_sums, config.causal_tail) == (128, True, 1, 1)


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(8, 24, 1000, 80, causal=True, dtype=torch.float16),
    Case(4, 24, 2048, 80, heads_kv=6, causal=True, dtype=torch.bfloat16),
    Case(8, 16, 700, 96, seq_k=1024, causal=True, dtype=torch.bfloat16, layout="bshd"),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_sums_the_packed_p_on_causal_d80_d96_turns_from_513_keys(case):
    config = _auto_checked(case, seed=41)
    assert (config.block_m, config.pingpong, config.packed_sums) == (128, True, 1)


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(2, 8, 3000, 88, causal=True, dtype=torch.bfloat16),
    Case(1, 32, 2500, 128, seq_k=3001, heads_kv=8, causal=True, dtype=torch.float16),
    Case(1, 16, 4096, 80, causal=True, dtype=torch.float16, layout="bshd"),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_runs_whole_192x64_items_on_few_causal_heads(case):
    config = _auto_checked(case, seed=47)
    assert config.block_m == 192 and not config.stream_k


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(2, 24, 2100, 64, heads_kv=8, causal=True, dtype=torch.float16),
    Case(1, 40, 2500, 64, seq_k=2600, causal=True, dtype=torch.bfloat16),
    Case(4, 12, 2049, 56, causal=True, dtype=torch.bfloat16),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_runs_three_warpgroups_on_causal_rows_from_2k_keys(case):
    config = _auto_checked(case, seed=23)
    assert config.block_m == 192 and not config.stream_k


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("head_dim,config", [(128, gf.Config(128, 128, 8, 2, True, persistent=True)),
                                             (64, gf.Config(192, 128, 12, 2, True, True, persistent=True)),
                                             (128, gf.Config(128, 128, 8, 2, True))],
                         ids=lambda x: _config_id(x) if isinstance(x, gf.Config) else f"d{x}")
@pytest.mark.parametrize("tail,heads_kv", [(3, 8), (13, 16), (1000, 8)])
def test_persistent_causal_order_over_kv_groups_and_a_tail(monkeypatch, head_dim, config, tail, heads_kv):
    """Longest first within chunks of heads, then within the last heads together
    (``_tile_coords``), over 32 heads: a tail of 3 (GQA, group 2) leaves 28 heads to
    chunks of one KV group; a tail of 13 KV heads (MHA), past ``ONE_GROUP_TAIL``, leaves
    one chunk of 13 heads before a tail of 19; 1000 puts every head in the tail (the
    plans' order). 192-384 work items for 132 SMs, so CTAs run items of several lengths
    and chunks; one CTA per item takes the same order. An item run twice or never leaves
    the output wrong or NaN-poisoned."""
    monkeypatch.setattr(gf, "causal_chunk", lambda *args: tail)
    monkeypatch.setattr(gf, "one_wave_tail", lambda *args: None)  # the tail as set, uncapped
    case = Case(2, 16, 1500, head_dim, heads_kv=heads_kv, seq_k=1700, causal=True, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, "cuda", seed=13)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, True, case.head_dim ** -0.5, config, out=out, lse=lse)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu()).ok


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("head_dim,heads_kv", [(128, 16), (128, 4), (96, 16)], ids=["mha", "gqa", "d96"])
@pytest.mark.parametrize("seq", [1024, 2048])
def test_persistent_causal_with_the_one_wave_tail(seq, head_dim, heads_kv):
    """Auto's persistent config on short causal rows of the D=128 build, where ``one_wave_tail``
    caps the tail (17 / 12 of 64 query heads at D=128; at D=96 9 at 2k keys, and at 1k the
    heuristic's two waves, 34, ``tail_waves``): MHA, whole chunks of
    the capped width (or one head at a time under ``ONE_GROUP_TAIL``), then the rest together;
    GQA, one KV group at a time, then the tail in whole groups (20 / 12 heads)."""
    case = Case(4, 16, seq, head_dim, heads_kv=heads_kv, causal=True, dtype=torch.bfloat16)
    config = gf.heuristic_config(90, head_dim, 2, True, seq, seq, 64)
    assert config.persistent and gf.one_wave_tail(seq, seq, head_dim, config.block_m, 132) < 64
    q, k, v = make_inputs(case, "cuda", seed=seq)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, True, case.head_dim ** -0.5, config, out=out, lse=lse)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu()).ok


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("waves", [1, 2, 3, 4])
@pytest.mark.parametrize("head_dim,heads_kv", [(80, 24), (128, 6)], ids=["d80", "gqa"])
def test_persistent_causal_with_a_tail_of_waves(head_dim, heads_kv, waves):
    """``causal_tail`` sets the tail to that many waves of items (17 heads of 8 items each at
    S=1k on 132 SMs): 17-68 of 48 query heads, so the body holds two chunks, one or none, and
    GQA (24/6) rounds the tail up to whole KV groups of 4. Every item must run once."""
    case = Case(2, 24, 1000, head_dim, heads_kv=heads_kv, seq_k=1024, causal=True, dtype=torch.bfloat16)
    config = dataclasses.replace(gf.heuristic_config(90, head_dim, 2, True, 1000, 1024, 48), causal_tail=waves)
    assert config.persistent and gf.constraints(config, head_dim, True) is None
    q, k, v = make_inputs(case, "cuda", seed=waves)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, True, case.head_dim ** -0.5, config, out=out, lse=lse)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu()).ok


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("head_dim,causal,config", [
    (128, True, gf.Config(128, 128, 8, 2, True, persistent=True)),  # dynamic schedule
    (128, False, gf.Config(128, 128, 8, 2, True, persistent=True)),
    (64, True, gf.Config(64, 128, 4, 2)),  # stage 1: no counter
    (128, True, gf.Config(64, 64, 8, 2, True, split_kv=2)),  # keys split between warpgroups
    (64, False, gf.Config(64, 128, 4, 2, kv_ctas=2)),  # keys split across CTAs: tickets per block
], ids=["persistent-causal", "persistent-full", "stage1", "split-kv", "kv-ctas"])
def test_plan_runs_read_each_calls_tensors(head_dim, causal, config):
    """A plan's first run goes through Triton; later runs launch directly, with light
    descriptors of *their* tensors and, persistent causal, the stream's counter that
    every launch must leave zeroed. Three runs on different inputs: each output must be
    its own inputs' attention (a stale pointer or a leftover count would fail)."""
    case = Case(2, 6, 700, head_dim, heads_kv=3, seq_k=900, causal=causal, dtype=torch.bfloat16)
    inputs = [make_inputs(case, "cuda", seed=s) for s in (21, 22, 23)]
    run = gf.prepare(*inputs[0], causal, 0.1, config)
    outs = [run(q, k, v) for q, k, v in inputs]
    for (q, k, v), (out, lse) in zip(inputs, outs):
        assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=causal, scale=0.1, lse=lse.cpu()).ok
    assert int(launch.stream_counters(1, inputs[0][0].device).abs().sum()) == 0


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case,config", [
    (Case(2, 6, 700, 128, seq_k=900, causal=True, dtype=torch.bfloat16), gf.Config(128, 128, 8, 2, True, persistent=True)),
    (Case(1, 4, 256, 64, seq_k=3000, causal=True, dtype=torch.float16), gf.Config(64, 128, 4, 2, kv_ctas=4)),
    (Case(1, 4, 200, 256, seq_k=3000, causal=True, dtype=torch.bfloat16), gf.Config(64, 64, 4, 2, kv_ctas=4)),
    # 512 items on 132 SMs: 248 cut into pieces, tickets per cut item and warpgroup.
    (Case(4, 16, 1024, 128, seq_k=1100, dtype=torch.bfloat16),
     gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True)),
    # 384 causal items on 132 SMs by a plan: tickets per cut item, a plan table kept for the graph.
    (Case(2, 8, 3000, 128, causal=True, dtype=torch.bfloat16), CAUSAL_PLAN_CONFIG),
], ids=["persistent-causal", "kv-ctas", "kv-ctas-d256", "stream-k", "causal-plan"])
def test_plan_in_a_cuda_graph(case, config):
    """Captured, the counters (the dynamic schedule's; the key split's tickets) are the
    capture's own, zeroed before it (a cached one written by eager launches meanwhile, or
    one zeroed only by a captured fill, would break): replays, eager runs between them and
    an eager run after the capture must all be correct."""
    q, k, v = make_inputs(case, "cuda", seed=31)
    run = gf.prepare(q, k, v, case.causal, 0.1, config)
    side = torch.cuda.Stream()
    side.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(side):
        run(q, k, v)
    torch.cuda.current_stream().wait_stream(side)
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out, lse = run(q, k, v)
    for _ in range(2):
        out.fill_(float("nan"))
        graph.replay()
        eager, _ = run(q, k, v)
        torch.cuda.synchronize()
        assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, scale=0.1, lse=lse.cpu()).ok
        assert judge(eager.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, scale=0.1).ok


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("sms,case,config", [
    # 64 items on 5 CTAs: 55 whole, 9 cut into 14-15 tile runs; the last key tile masked.
    (5, Case(2, 4, 1000, 128, dtype=torch.bfloat16), STREAM_K_CONFIG),
    # GQA, Sq != Sk, rows past Sq in every head's last block: 18 items on 7 CTAs, 11 cut.
    (7, Case(1, 6, 300, 128, heads_kv=2, seq_k=1500, dtype=torch.float16), STREAM_K_CONFIG),
    # Two key tiles an item (the second masked): pieces of a single tile.
    (5, Case(1, 4, 257, 128, seq_k=129, dtype=torch.bfloat16), STREAM_K_CONFIG),
    # One key tile an item: nothing can be cut, every piece is whole.
    (11, Case(2, 3, 700, 128, seq_k=1, dtype=torch.bfloat16), STREAM_K_CONFIG),
    # More CTAs than items: one whole item each, no cut.
    (200, Case(1, 4, 1000, 128, dtype=torch.bfloat16), STREAM_K_CONFIG),
    # Three consumer warpgroups with ping-pong turns (D=64).
    (5, Case(1, 8, 1000, 64, seq_k=777, dtype=torch.bfloat16),
     gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True)),
    # 192x64 tiles with O in two parts and packed sums (D=96: 64 + 32 columns; D=80 GQA: 64 + 16).
    (5, Case(1, 6, 1000, 96, seq_k=2100, dtype=torch.bfloat16),
     dataclasses.replace(gf._THREE_WARPGROUPS_64, stream_k=True)),
    (7, Case(1, 8, 700, 80, heads_kv=2, seq_k=1500, dtype=torch.float16),
     dataclasses.replace(gf._THREE_WARPGROUPS_64, stream_k=True)),
], ids=["d128-whole-and-cut", "gqa-all-cut", "one-tile-pieces", "uncuttable", "under-a-wave", "d64-pingpong",
        "d96-192x64-parts", "d80-gqa-192x64-parts"])
def test_stream_k_pieces_merge_to_the_reference(monkeypatch, sms, case, config):
    """Persistent CTAs on a few SMs, so that small inputs have whole items, cut items and
    pieces of every length. Two launches on the stream: the first must leave every
    ticket at zero for the second."""
    real_l2 = gf._device_facts(torch.cuda.current_device())[1]
    monkeypatch.setattr(gf, "_device_facts", lambda index: (sms, real_l2))
    for seed in (41, 42):
        q, k, v = make_inputs(case, "cuda", seed=seed)
        out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
        gf.forward(q, k, v, False, case.head_dim ** -0.5, config, out=out, lse=lse)
        verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=False, lse=lse.cpu())
        assert verdict.ok, f"{case.label()} on {sms} SMs, seed {seed}: {verdict}"
    assert int(launch.stream_counters(4096, q.device).abs().sum()) == 0


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("sms,case,config", [
    # 64 items of 1-8 tiles on 13 CTAs: runs of ~3 items, cuts through masked and unmasked tiles.
    (13, Case(2, 4, 1000, 128, causal=True, dtype=torch.bfloat16), CAUSAL_PLAN_CONFIG),
    # 16 items on 11 CTAs: the long items span three CTAs (a middle piece).
    (11, Case(1, 2, 1000, 128, causal=True, dtype=torch.bfloat16), CAUSAL_PLAN_CONFIG),
    # GQA, Sq < Sk (every row sees the first 1200 keys), fp16.
    (7, Case(1, 6, 300, 128, heads_kv=2, seq_k=1500, causal=True, dtype=torch.float16), CAUSAL_PLAN_CONFIG),
    # Sq > Sk: the first rows see no key; their pieces are empty states.
    (7, Case(1, 4, 1500, 128, seq_k=300, causal=True, dtype=torch.bfloat16), CAUSAL_PLAN_CONFIG),
    # Ping-pong turns, O in two column parts (D=96 on the D=128 build).
    (9, Case(2, 3, 1111, 96, causal=True, dtype=torch.bfloat16),
     gf.Config(128, 128, 8, 2, True, True, persistent=True, stream_k=True)),
    # Three consumer warpgroups (D=64), 192-row items.
    (5, Case(1, 8, 1000, 64, seq_k=777, causal=True, dtype=torch.bfloat16),
     gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True)),
    # Pairs of whole items (causal_plan.pair_rows): 32 items on 16 CTAs, and Sq < Sk on 12.
    (16, Case(1, 4, 1000, 128, causal=True, dtype=torch.bfloat16), CAUSAL_PLAN_CONFIG),
    (12, Case(1, 3, 1000, 128, seq_k=1200, causal=True, dtype=torch.float16), CAUSAL_PLAN_CONFIG),
    # GQA on the D=64 build's 192-row items, masked tiles max-free (the plan's own order).
    (8, Case(1, 8, 1000, 64, heads_kv=2, causal=True, dtype=torch.float16),
     gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True, masked_free=True)),
], ids=["d128", "three-ctas-an-item", "gqa-sq-lt-sk", "sq-gt-sk", "d96-turns", "d64-three-warpgroups", "pairs",
        "pairs-sq-lt-sk", "d64-gqa-masked-free"])
def test_causal_plan_pieces_merge_to_the_reference(monkeypatch, sms, case, config):
    """Causal stream-K on a few SMs, so that small inputs cut items at every kind of tile.
    Two launches on the stream: the first must leave every ticket at zero for the second.
    The same inputs twice give the same bits: pieces fold in key order, whoever is last."""
    real_l2 = gf._device_facts(torch.cuda.current_device())[1]
    monkeypatch.setattr(gf, "_device_facts", lambda index: (sms, real_l2))
    for seed in (43, 44):
        q, k, v = make_inputs(case, "cuda", seed=seed)
        outs = []
        for _ in range(2):
            out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
            gf.forward(q, k, v, True, case.head_dim ** -0.5, config, out=out, lse=lse)
            outs.append(out)
        verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu())
        assert verdict.ok, f"{case.label()} on {sms} SMs, seed {seed}: {verdict}"
        assert torch.equal(outs[0], outs[1])
    assert int(launch.stream_counters(4096, q.device).abs().sum()) == 0


@sm90
@pytest.mark.gpu
def test_a_capture_takes_one_arena_slice_per_stream():
    """The driver names the capture, so a capture's launches share one slice of the
    zeroed arena and the next capture gets another: no fill node per call."""
    device = torch.device("cuda", torch.cuda.current_device())
    launch.stream_counters(1, device)  # an eager launch zeroes the arena first
    arena = launch._CAPTURE_ARENAS[device][0]
    taken = []
    for _ in range(2):
        graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(graph):
            assert launch._capture_key(device) is not None
            taken.append([launch.stream_counters(n, device) for n in (64, 8)])
    (a, b), (c, _) = taken
    assert a.data_ptr() == b.data_ptr() != c.data_ptr()
    assert all(arena.data_ptr() <= t.data_ptr() < arena.data_ptr() + arena.nbytes for t in (a, c))
    assert launch._capture_key(device) is None  # not capturing


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("magnitude", [1.0, 10.0])
def test_backend_gluon_through_the_api(magnitude):
    case = Case(2, 16, 2048, 128, causal=True, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, "cuda", seed=9, magnitude=magnitude)
    out, lse = attention(q, k, v, causal=True, return_lse=True, backend="gluon")
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu()).ok


RISING_CONFIGS = [gf.Config(64, 128, 4, 2), gf.Config(64, 64, 4, 2), gf.Config(128, 128, 8, 2, True, persistent=True),
                  gf.Config(192, 128, 12, 2, True, True, persistent=True), gf.Config(64, 64, 8, 2, True, split_kv=2),
                  gf.Config(64, 128, 4, 2, kv_ctas=2), gf.Config(64, 128, 4, 2, lazy_rescale=False)]
RISING_CONFIGS = _with(RISING_CONFIGS, MAX_FREE_CONFIGS)


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("config", RISING_CONFIGS, ids=_config_id)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_running_max_rising_past_the_slack_rescales_o(head_dim, causal, config):
    """Keys grow along the sequence, so each row's max keeps rising by more than
    RESCALE_SLACK across tiles: O's skipped multiply must run then, for every kernel."""
    if gf.constraints(config, head_dim):
        pytest.skip(gf.constraints(config, head_dim))
    case = Case(2, 4, 300, head_dim, seq_k=1500, causal=causal, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, "cuda", seed=11)
    k = (k.float() * torch.linspace(1.0, 6.0, k.shape[2], device="cuda").view(1, 1, -1, 1)).to(k.dtype)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, causal, head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=causal, lse=lse.cpu())
    assert verdict.ok, f"{config}: {verdict}"


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("config", RISING_CONFIGS, ids=_config_id)
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("dtype", [torch.bfloat16, torch.float16])
def test_a_score_far_past_the_running_max_is_not_lost(dtype, head_dim, causal, config):
    """One late key scores hundreds of nats above every other (q leans one way, key 700 points
    that way): its exps against the running max overflow fp32 (x >= 128), so a kernel that
    skips the row max must take the max and redo the tile, not carry inf into O."""
    if gf.constraints(config, head_dim):
        pytest.skip(gf.constraints(config, head_dim))
    case = Case(2, 4, 900, head_dim, seq_k=1200, causal=causal, dtype=dtype)
    q, k, v = make_inputs(case, "cuda", seed=12)
    q = (q.float() + 1.0).to(dtype)
    k[:, :, 700] = 40.0
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, causal, head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=causal, lse=lse.cpu())
    assert verdict.ok, f"{config}: {verdict}"


@pytest.mark.parametrize("fp16", [False, True])
@pytest.mark.parametrize("partial", [False, True])
@pytest.mark.parametrize("per_thread", [16, 32, 64])
def test_the_sum_check_reads_and_writes_the_operands_it_names(per_thread, partial, fp16):
    """Operands: packed P out (n / 2), sums, raises and rescales out (n each), then x (n), P tied (n / 2)
    and the sums (n). The check reads the four sums of registers 0-3 (a thread's two rows, two
    column parities); the redo packs register pairs low half first and the row max reads x."""
    n, half = per_thread, per_thread // 2
    asm = gf.sum_check_asm(n, partial, fp16)
    lines = asm.splitlines()
    in_x, in_sum = half + 3 * n, 2 * half + 4 * n
    assert [f"mov.f32 s{k}, ${in_sum + k};" for k in range(4)] == lines[3:7]
    cvt = "cvt.rn.f16x2.f32" if fp16 else "cvt.rn.bf16x2.f32"
    assert [line for line in lines if line.startswith("cvt")] == [f"{cvt} ${k}, w, v;" for k in range(half)]
    assert f"sub.f32 u, ${in_x + 2 * half - 1}, up1;" in lines
    maxes = [line for line in lines if line.startswith("max.f32 up0, up0, $")]
    assert [int(m.split("$")[1].rstrip(";")) - in_x for m in maxes] == [i for i in range(n) if (i // 2) % 2 == 0][1:]
    assert (asm.count("shfl.sync") == 4) == partial  # whole rows add across the quad as well
    assert asm.count("vote.sync.any") == 1 and "@!any bra.uni done;" in lines
    outs = [line for line in lines[lines.index("done:"):] if line.startswith("mov.f32 $")]
    assert len(outs) == 3 * n and f"mov.f32 ${half}, s0;" in outs and f"mov.f32 ${half + n + 2}, up1;" in outs
    assert f"mov.f32 ${half + 2 * n + 3}, a1;" in outs
    cons = gf.sum_check_constraints(n).split(",")
    assert cons == ["=r"] * half + ["=f"] * (3 * n) + ["f"] * n + [str(i) for i in range(half)] + ["f"] * n


@pytest.mark.parametrize("fp16", [False, True])
@pytest.mark.parametrize("partial", [False, True])
@pytest.mark.parametrize("per_thread", [16, 32, 64])
def test_packed_sums_add_each_rows_registers_once(per_thread, partial, fp16):
    """Both packed-sum asms: each of the thread's packed P registers is added into its own row's
    tree exactly once (register k is row k % 2), and the sums land where the sum check reads
    them (register i: row (i // 2) % 2, parity i % 2). Variant 1 reads P from $n on and writes n
    sums; variant 2 reads the tied P ($0 on) and takes no sums operand."""
    n, half = per_thread, per_thread // 2
    for asm, first in ((gf.packed_sums_asm(n, partial, fp16), n), (gf.sum_check_asm(n, partial, fp16, True), 0)):
        adds = [line for line in asm.splitlines() if line.startswith("add.rn.")]
        assert all(line.startswith("add.rn.f16x2" if fp16 else "add.rn.bf16x2") for line in adds)
        assert len(adds) == half - 2  # two trees of half / 2 leaves
        read = [int(w.strip(",;$")) for line in adds for w in line.split()[2:] if w.startswith("$")]
        assert sorted(read) == list(range(first, first + half))
        for line in adds:  # a tree never mixes the two rows
            rows = {(int(w.strip(",;$")) - first) % 2 for w in line.split()[2:] if w.startswith("$")}
            assert len(rows) <= 1
    assert gf.packed_sums_asm(n, partial, fp16).count("shfl.sync") == (0 if partial else 4)  # the quad's lanes
    outs = [line for line in gf.packed_sums_asm(n, partial, fp16).splitlines() if line.startswith("mov.f32 $")]
    assert outs == [f"mov.f32 ${i}, s{2 * ((i // 2) % 2) + i % 2};" for i in range(n)]
    assert gf.packed_sums_constraints(n).split(",") == ["=f"] * n + ["r"] * half
    assert gf.sum_check_constraints(n, True).split(",") == gf.sum_check_constraints(n).split(",")[:-n]
    assert "mov.f32 s0, $" not in gf.sum_check_asm(n, partial, fp16, True)


def test_packed_sums_is_a_level_of_max_free():
    """packed_sums rides on the kernels' LAZY constexpr: ignored without max_free, as max_free is
    without the lazy rescale."""
    c = gf.Config(192, 64, 12, 2, True, True, persistent=True)
    assert [gf.lazy_level(dataclasses.replace(c, packed_sums=n)) for n in (0, 1, 2)] == [2, 3, 4]
    assert gf.lazy_level(dataclasses.replace(c, packed_sums=2, max_free=False)) == 1
    assert gf.lazy_level(dataclasses.replace(c, packed_sums=2, lazy_rescale=False)) == 0
    # ... so the tuner's space prunes those points as duplicates.
    assert "needs max_free" in gf.constraints(dataclasses.replace(c, packed_sums=1, max_free=False), 128)
    assert gf.constraints(dataclasses.replace(c, packed_sums=2), 128) is None


def test_masked_free_is_a_flag_on_the_max_free_levels():
    """masked_free adds MASKED_FREE to the max-free levels, and the kernels' ``_level`` takes it off."""
    c = gf.Config(192, 128, 12, 3, True, True, persistent=True, masked_free=True)
    levels = [gf.lazy_level(dataclasses.replace(c, packed_sums=n)) for n in (0, 1, 2)]
    assert levels == [10, 11, 12] and [gf._level.fn(n) for n in levels] == [2, 3, 4]
    assert "needs max_free" in gf.constraints(dataclasses.replace(c, max_free=False), 64)
    assert "needs max_free" in gf.constraints(dataclasses.replace(c, lazy_rescale=False), 64)
    assert gf.constraints(c, 64) is None


@pytest.mark.parametrize("per_thread", [32, 64])
def test_the_rescale_multiplies_each_register_by_its_rows_alpha(per_thread):
    """Operands: outputs 0..n-1, the same registers tied as inputs n..2n-1, then the n
    alphas. Register i must be scaled by alpha i (an off-by-n once squared O), and the
    branch must test alphas 0 and 2, the thread's two rows in the wgmma layout."""
    asm = gf.rescale_asm(per_thread)
    muls = [line for line in asm.splitlines() if line.startswith("mul.f32")]
    n = per_thread
    assert muls == [f"mul.f32 ${i}, ${i}, ${2 * n + i};" for i in range(n)]
    assert f"${2 * n}," in asm and f"${2 * n + 2}," in asm
    cons = gf.rescale_constraints(n)
    assert cons.split(",") == ["=f"] * n + [str(i) for i in range(n)] + ["f"] * n


def test_supports_says_why_not():
    q = torch.randn(1, 2, 8, 64, dtype=torch.float16)
    assert "sm_90" in gf.supports(q, q, q, 80)
    q100 = torch.randn(1, 2, 8, 100, dtype=torch.float16)
    assert "head dim 100: needs a multiple of 8 from 16 to 256" in gf.supports(q100, q100, q100, 90)
    q16 = torch.randn(1, 2, 8, 16, dtype=torch.float16)
    assert gf.supports(q16, q16, q16, 90) is None  # D=16 runs the D=32 build (v65)
    q8, q264 = (torch.randn(1, 2, 8, d, dtype=torch.float16) for d in (8, 264))
    assert "head dim 8" in gf.supports(q8, q8, q8, 90)
    assert "head dim 264" in gf.supports(q264, q264, q264, 90)
    q96 = torch.randn(1, 2, 8, 96, dtype=torch.float16)
    assert "one head dim" in gf.supports(q96, q96[..., :64].contiguous(), q96, 90)
    qf = q.float()
    assert "fp16 or bf16" in gf.supports(qf, qf, qf, 90)
    strided = torch.randn(1, 2, 8, 128, dtype=torch.float16)[..., ::2]
    assert "stride(3)" in gf.supports(strided, strided, strided, 90)


def test_backend_gluon_is_refused_off_sm90_with_a_reason():
    q, k, v = (torch.randn(1, 2, 8, 64, dtype=torch.float16) for _ in range(3))
    with pytest.raises(ValueError, match=r'backend="gluon"'):
        attention(q, k, v, backend="gluon")


@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq,batch_heads", [(512, 8), (1024, 128), (4096, 32), (8192, 16), (1, 8), (64, 8)])
def test_d256_takes_two_warpgroups_on_128x64_tiles_or_stage_1_on_small_grids(causal, seq, batch_heads):
    config = gf.heuristic_config(90, 256, 2, causal, seq, seq, batch_heads)
    assert gf.constraints(config, 256) is None
    if gf.small_grid(seq, batch_heads) and -(-seq // 64) * batch_heads <= 132:
        # Stage 1's 64x64, lazy: on one wave the serial chain counts (9-decode/).
        assert (config.block_m, config.block_n, config.warp_specialize, config.lazy_rescale) == (64, 64, False, True)
    else:  # also small grids whose stage-1 CTAs would take two waves (8-d256-small-grids/)
        turns = causal and seq <= 1024 and not gf.small_grid(seq, batch_heads)  # measured there (calls 6, 14)
        assert gf.heuristic_config(90, 240, 2, causal, seq, seq, batch_heads).pingpong is False  # D=256 only
        assert config == gf.Config(128, 64, 8, 2, True, pingpong=turns)


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(4, 16, 1024, 256, causal=True, dtype=torch.bfloat16),
    Case(8, 16, 500, 256, heads_kv=4, causal=True, dtype=torch.float16, layout="bshd"),
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_takes_turns_on_d256_causal_rows_of_at_most_1k_keys(case):
    config = _auto_checked(case, seed=43)
    assert config == gf.Config(128, 64, 8, 2, True, pingpong=True)


def test_d256_constraints_keep_o_in_registers_and_shared_memory():
    assert "O alone takes 128" in gf.constraints(gf.Config(192, 64, 12, 2, True), 256)
    assert "shared memory" in gf.constraints(gf.Config(128, 64, 8, 2, True, persistent=True), 256)
    assert "shared memory" in gf.constraints(gf.Config(64, 128, 4, 2), 256)
    assert gf.constraints(gf.Config(64, 64, 4, 2), 256) is None
    assert gf.constraints(gf.Config(64, 32, 4, 2, kv_ctas=8), 256) is None  # merged by column blocks


def test_constraints_prune_what_the_kernel_cannot_express():
    assert gf.constraints(gf.Config(128, 64, 4, 2), 64)  # 128 rows need 8 warps
    assert gf.constraints(gf.Config(64, 128, 4, 2, True), 128)  # ws needs two 64-row consumers
    assert gf.constraints(gf.Config(128, 128, 8, 4), 128)  # 4 stages of 128x128 K and V: > 227 KB
    assert gf.constraints(gf.heuristic_config(90, 128, 2, False, 8192, 8192, 32), 128) is None


@pytest.mark.parametrize("causal,block_m,build,lead", [
    (True, 192, 128, True), (True, 192, 64, True), (False, 192, 128, False), (True, 128, 128, False),
    (True, 192, 32, False), (True, 64, 64, False)])
def test_only_causal_three_warpgroup_blocks_that_skip_unseen_tiles_lead(causal, block_m, build, lead):
    assert gf.leads(causal, block_m, build) is lead
    assert lead <= gf._skips_unseen(True, 1, block_m // 64, causal, build)  # the lead's rationale


@pytest.mark.parametrize("ws,ts,num_wg,causal,build,skips", [
    (True, 1, 3, True, 64, True),  # D=64's 192-row causal blocks: lower warpgroups' last tiles
    (True, 1, 3, True, 32, False),  # the D=32 build spills 16 B with it
    (True, 1, 3, False, 64, False),  # full rows: only a last block's padding would skip (measured level)
    (True, 1, 3, True, 128, True),  # D=128's causal 192x64 tiles: the lower warpgroups' diagonal tiles
    (True, 1, 2, True, 128, False),  # 128-row blocks: measured 1-1.4% slower with it
    (True, 3, 3, True, 64, False),  # keys split between warpgroups: each walks its own tiles
    (False, 1, 1, True, 64, False),  # stage 1 loads its own ring
])
def test_only_causal_three_warpgroup_walks_skip_the_tiles_their_rows_do_not_see(ws, ts, num_wg, causal, build,
                                                                                   skips):
    assert gf._skips_unseen(ws, ts, num_wg, causal, build) is skips


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("causal", [False, True])
@pytest.mark.parametrize("seq,batch_heads", [(512, 8), (1024, 512), (2048, 256), (4096, 128), (8192, 64),
                                              (16384, 32)])
def test_heuristic_configs_are_expressible_and_pick_by_measured_branch(head_dim, causal, seq, batch_heads):
    config = gf.heuristic_config(90, head_dim, 2, causal, seq, seq, batch_heads)
    assert gf.constraints(config, head_dim) is None
    large = not gf.small_grid(seq, batch_heads)
    # Causal too from 2k keys: these grids give each CTA three or more 192-row items.
    three_warpgroups = head_dim == 64 and large and seq >= 2048
    # D=128 full and causal rows from 2k keys: 192x64 tiles, whole items (these
    # grids give each CTA 10+); causal ones with three stages.
    three_by_64 = head_dim == 128 and large and seq >= 2048
    assert (config.block_m == 192 and config.pingpong) == (three_warpgroups or three_by_64)
    assert (config.block_n == 64 and config.block_m == 192) == three_by_64
    if three_by_64:
        assert config.num_stages == (3 if causal else 2)
    # D=128 ping-pong turns: full rows of less than 2k keys (epilogues overlap the other's GEMMs).
    # ... and causal rows of 513-1024 keys (they draw less than stage 1's 64x64 under the power cap).
    two_turns = large and head_dim == 128 and (seq < 2048 if not causal else 512 < seq <= 1024)
    assert (config.block_m == 128 and config.pingpong) == two_turns
    persistent = large and ((head_dim == 128 and not (causal and seq <= 512)) or three_warpgroups)
    assert config.persistent == persistent
    # Stream-K tail: full rows of 2k+ keys on the 192x128 build (shorter items do not pay for the merge).
    assert config.stream_k == (large and not causal and seq >= 2048 and head_dim == 64)
    if large and head_dim == 128 and causal and seq <= 512:  # the short causal rows' stage 1
        assert (config.block_n, config.num_stages) == (32, 2)
    if large and head_dim == 64 and causal and seq <= 1024:
        assert _tiles(config) == gf.Config(64, 64, 4, 2)
    if three_warpgroups:  # three stages (kernel log v9 full rows, v26 causal ones)
        assert config.num_stages == 3
    assert (config.split_kv == 2) == (not large and causal and seq >= 2048)
    # No row max on unmasked tiles wherever the rescale is lazy (v35); small grids rescale eagerly.
    # The packed P's row sums (v50): the 192x64 tiles, D=128's drawn causal items and its full
    # rows under 2k keys (both 128x128).
    packed = three_by_64 or (head_dim == 128 and large and config.block_m == 128 and config.persistent
                             and causal != config.pingpong)  # drawn causal items; full rows' turns
    assert gf.lazy_level(_tiles(config)) == ((4 if packed else 2) if large else 0)
    # Masked tiles max-free too on causal rows' 64- and 32-key tiles (v66).
    assert config.masked_free == (large and causal and config.block_n <= 64)


@pytest.mark.parametrize("head_dim,seq,batch_heads,three", [
    (64, 4096, 128, True), (64, 2048, 256, True), (64, 3000, 32, True), (64, 4096, 32, True),
    (64, 2048, 36, True),  # 396 items: three a CTA
    (64, 2048, 35, False), (64, 2048, 32, False), (64, 1536, 512, False), (64, 1024, 512, False),
    (32, 4096, 128, False), (128, 1536, 128, False),  # other builds (D=128 from 2k: causal_three_warpgroups_pay)
])
def test_causal_d64_rows_from_2k_keys_run_three_warpgroups_where_each_cta_gets_three_items(head_dim, seq,
                                                                                        batch_heads, three):
    """Stage 1's L2 traffic costs clock under the power cap (2026-11-27-h100-power/); the
    192-row build needs three items a CTA to balance (176 items read 0.90x, 352 0.99x)."""
    assert gf.three_warpgroups_draw_less(head_dim, seq, batch_heads) is three
    config = gf.heuristic_config(90, head_dim, 2, True, seq, seq, batch_heads)
    assert (config.block_m == 192 and not config.stream_k) == three
    if head_dim == 64 and not three and seq < 8192:
        assert config.block_m == 64


@pytest.mark.parametrize("seq_q,seq_k,batch_heads,three", [
    (2048, 2048, 128, True), (4096, 4096, 64, True), (16384, 16384, 16, True), (2048, 2048, 36, True),
    (2048, 2048, 35, False),  # 385 items: fewer than three a CTA; 128x128 with its stream-K tail
    (1024, 8192, 512, False),  # short query rows
    (1024, 1024, 512, False),
])
def test_d128_full_rows_from_2k_keys_run_192x64_where_each_cta_gets_three_items(seq_q, seq_k, batch_heads, three):
    """K and V cross L2 once per 192 rows instead of 128 (2026-11-27-h100-power/, runs 14-15)."""
    assert gf.three_warpgroups_read_less(seq_q, batch_heads) is three
    for head_dim in (128, 120, 112):
        config = gf.heuristic_config(90, head_dim, 2, False, seq_q, seq_k, batch_heads)
        assert (config == gf._THREE_WARPGROUPS_64) is three
        assert gf.constraints(config, head_dim) is None


@pytest.mark.parametrize("head_dim,seq,batch_heads,tail", [
    (80, 2048, 64, True), (96, 2048, 64, True), (96, 4096, 32, True), (80, 8192, 16, True),  # 5.2-5.3 waves
    (96, 2048, 16, True), (96, 2048, 256, True),  # 1.33 and 21.3 waves
    (96, 2048, 128, False), (96, 3000, 16, False), (80, 3000, 16, False),  # 10.7 and 1.94 waves
    (80, 4096, 96, False),  # exactly 16 waves: nothing to cut (the dims preset's D=80 S=4k)
    (88, 2048, 64, True), (72, 8192, 16, True), (72, 2048, 128, False),  # O's parts at rows of 8 mod 16
])
def test_full_192x64_items_with_o_in_parts_take_a_stream_k_tail_where_it_pays(head_dim, seq, batch_heads, tail):
    """2026-11-28-h200-wide-d-configs/, calls 6 and 8-10 (``_parts_config``)."""
    config = gf.heuristic_config(90, head_dim, 2, False, seq, seq, batch_heads)
    assert config == dataclasses.replace(gf._THREE_WARPGROUPS_64, stream_k=tail)
    assert tail == gf.part_empty_last_wave(gf.cdiv(seq, 192) * batch_heads)
    assert gf.constraints(config, head_dim) is None


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("case", [
    Case(1, 16, 2048, 96, dtype=torch.bfloat16),  # 176 items: 1.33 waves
    Case(1, 16, 2048, 80, heads_kv=4, dtype=torch.float16, layout="bshd"),
    Case(1, 16, 2100, 72, seq_k=2500, dtype=torch.bfloat16),  # rows of 8 mod 16 half-words
], ids=lambda c: c.label().replace(" ", "-"))
def test_auto_cuts_a_stream_k_tail_on_full_192x64_items_with_o_in_parts(case):
    config = _auto_checked(case, seed=37)
    assert config == dataclasses.replace(gf._THREE_WARPGROUPS_64, stream_k=True)


@pytest.mark.parametrize("head_dim,causal,seq,batch_heads,instead", [
    (40, False, 1024, 512, True), (40, True, 512, 1024, True), (40, True, 4096, 128, True),
    (56, False, 512, 1024, True), (56, True, 4096, 128, True), (104, True, 512, 512, True),
    (120, True, 1024, 256, True), (72, True, 512, 512, True),
    (48, True, 1536, 64, True), (48, True, 4096, 128, True), (48, True, 1024, 512, False),
    (48, False, 1024, 512, False), (24, True, 1024, 1024, False), (64, True, 1536, 512, False),
    (80, True, 512, 512, False), (128, True, 512, 512, False),
    (40, False, 512, 8, False),  # one wave: the small grids' own configs
    (16, False, 1024, 2048, True), (16, True, 2048, 512, True), (16, True, 1025, 512, True),
    (16, True, 1024, 2048, False), (16, False, 512, 4096, False), (24, False, 1024, 2048, False),
    (32, True, 4096, 512, False),
])
def test_stage1_gives_way_where_it_lags_the_builds_warp_specialised_config(head_dim, causal, seq, batch_heads,
                                                                           instead):
    """Head dims of 8 mod 16 on the D=64 / D=128 builds, D=48 causal past 1k keys, and D=16 from
    1k keys (past 1k causal) run the build's persistent warp-specialised config where stage 1
    would (odd-cells runs 2, 4, 6-8; d16-gluon call 4)."""
    config = gf.heuristic_config(90, head_dim, 2, causal, seq, seq, batch_heads)
    assert (_tiles(config) == gf._STAGE1_INSTEAD.get(gf.padded_head_dim(head_dim))) is instead
    assert config.warp_specialize or not instead
    assert gf.constraints(config, head_dim) is None


@pytest.mark.parametrize("head_dim,causal,seq,batch_heads,block_n", [
    (32, False, 512, 2048, 64), (32, False, 1536, 512, 64), (32, True, 2048, 512, 64), (32, True, 4096, 512, 64),
    (24, False, 1024, 2048, 128),  # the same GEMMs, not measured
    (64, False, 1024, 512, 128), (32, True, 1024, 2048, 64),  # causal S <= 1k: its own 64x64
    (32, False, 512, 8, 128),  # one wave: the small grids' configs
])
def test_d32_stage1_takes_64_key_tiles(head_dim, causal, seq, batch_heads, block_n):
    """D=32's stage 1 past one wave runs 64-key tiles (d16-gluon call 31: 1.004-1.067x alone)."""
    config = gf.heuristic_config(90, head_dim, 2, causal, seq, seq, batch_heads)
    assert (config.block_m, config.block_n, config.warp_specialize) == (64, block_n, False)
    assert gf.constraints(config, head_dim, causal=causal) is None


@pytest.mark.parametrize("head_dim,seq,batch_heads,plan", [
    (64, 3000, 16, True), (48, 2900, 16, True), (32, 3000, 16, True), (40, 3000, 16, True), (64, 8192, 6, True),
    (64, 1500, 32, False),  # 8 blocks a head: 0.983x
    (64, 3000, 32, False),  # two pairs a CTA: 1.009-1.014x
    (64, 2048, 16, False), (64, 8192, 64, False), (128, 3000, 16, False),
])
def test_causal_three_warpgroup_launches_run_by_pairs_where_one_pair_fills_the_sms(head_dim, seq, batch_heads, plan):
    config = gf.heuristic_config(90, head_dim, 2, True, seq, seq, batch_heads)
    assert (config.block_m == 192 and config.stream_k) is plan
    assert gf.three_warpgroup_pairs_pay(False, seq, batch_heads) is False  # full rows: stream-K's own rule
    if plan:
        assert causal_plan.pairs_each(gf.cdiv(seq, 192) * batch_heads, gf.SMALL_GRID_CTAS) == 1
        assert gf.constraints(config, head_dim) is None


@pytest.mark.parametrize("head_dim,seq,batch_heads", [
    (32, 3000, 16), (24, 3000, 16), (16, 3000, 16),  # the plan's pairs
    (32, 8192, 32), (32, 16384, 8), (24, 8192, 32),  # whole items drawn
    (64, 3000, 16), (40, 3000, 16), (56, 3000, 16),  # the D=64 build's pairs (v68)
    (48, 8192, 32), (64, 16384, 8),  # the D=64 build drawn: fp32 sums (packed, they spill)
])
def test_causal_192x128_rows_sum_the_packed_p_on_the_d32_build_and_the_pairs(head_dim, seq, batch_heads):
    """v64: 1.007-1.035x in 12 of 12 cells, bf16 and fp16; the D=64 build's pairs 1.014-1.024x
    (v68); full rows and the D=64 build's drawn items keep fp32 sums."""
    causal = gf.heuristic_config(90, head_dim, 2, True, seq, seq, batch_heads)
    assert causal.block_m == 192 and causal.block_n == 128
    assert causal.packed_sums == (2 if gf.padded_head_dim(head_dim) == 32 or causal.stream_k else 0)
    assert causal.stream_k is (seq == 3000)
    assert gf.lazy_level(_tiles(causal)) == (4 if causal.packed_sums else 2)
    assert gf.constraints(causal, head_dim, causal=True) is None
    full = gf.heuristic_config(90, head_dim, 2, False, seq, seq, batch_heads)
    assert full.packed_sums == 0


def test_small_grids_split_long_causal_rows_between_warpgroups():
    """Seed shape: stage 1, 128-key tiles; causal rows of 2k+ keys: two warpgroups share
    each block's keys; D=128 past a wave of stage-1 CTAs: two ping-pong warpgroups on
    128x128 tiles.
    Stage 1 and the split rescale O eagerly (the lazy branch cost 2-3% on a serial chain)."""
    assert gf.heuristic_config(90, 64, 2, True, 512, 512, 8) == gf.Config(64, 128, 4, 2, lazy_rescale=False)
    split = gf.heuristic_config(90, 64, 2, True, 2048, 2048, 8)
    assert split.split_kv == 2 and split.warp_specialize and gf.constraints(split, 64) is None
    assert gf.constraints(split, 128) is None
    assert gf.heuristic_config(90, 64, 2, False, 2048, 2048, 8).split_kv == 1
    pingpong = gf.Config(128, 128, 8, 2, warp_specialize=True, pingpong=True)
    assert gf.heuristic_config(90, 128, 2, False, 1024, 1024, 16) == pingpong
    assert gf.heuristic_config(90, 96, 2, True, 1000, 1000, 16) == pingpong  # O in parts: no other turns rule
    assert gf.heuristic_config(90, 128, 2, False, 512, 512, 16) == gf.Config(64, 128, 4, 2, lazy_rescale=False)
    assert gf.heuristic_config(90, 64, 2, False, 1024, 1024, 16) == gf.Config(64, 128, 4, 2, lazy_rescale=False)
    assert not split.lazy_rescale and gf.heuristic_config(90, 64, 2, True, 2048, 2048, 1024).lazy_rescale


@pytest.mark.parametrize("batch_heads,seq_q,seq_k,head_dim,causal,kv_ctas", [
    (8, 64, 8192, 128, False, 8), (8, 128, 16384, 128, False, 8), (8, 256, 4096, 64, False, 4),
    (8, 256, 4096, 128, True, 4), (8, 256, 8192, 128, False, 4),  # D=128: one wave (one CTA per SM)
    (8, 512, 8192, 128, False, 2), (16, 256, 8192, 128, True, 2),
    (8, 512, 8192, 64, True, 4),  # D=64: two CTAs per SM
    (8, 512, 512, 64, False, 1),  # seed: 512 keys are too few to pay for the merge
    (8, 2048, 2048, 64, True, 1),  # 256 blocks: no room; two warpgroups split instead
    (16, 1024, 4096, 64, False, 1),
])
def test_small_grids_split_long_key_rows_across_ctas_as_measured(batch_heads, seq_q, seq_k, head_dim, causal,
                                                                 kv_ctas):
    config = gf.heuristic_config(90, head_dim, 2, causal, seq_q, seq_k, batch_heads)
    assert config.kv_ctas == kv_ctas and gf.constraints(config, head_dim) is None
    if kv_ctas > 1:
        assert not config.warp_specialize and (config.block_n, config.num_stages) == (128, 2)
        blocks = -(-seq_q // 64) * batch_heads
        per_sm = min(2, gf.SMEM_LIMIT // gf.smem_bytes(config, head_dim))
        assert per_sm == (1 if head_dim == 128 else 2)
        assert blocks * kv_ctas <= per_sm * 132 and seq_k >= gf.KV_CTAS_MIN_KEYS * kv_ctas


@pytest.mark.parametrize("batch_heads,seq_q,seq_k,head_dim,kv_ctas", [
    (8, 64, 8192, 256, 8), (8, 128, 16384, 256, 8), (8, 256, 8192, 256, 4), (8, 512, 8192, 256, 2),
    (16, 256, 8192, 256, 2), (16, 256, 4096, 192, 2),  # the cells measured (d256-key-split/1-cells/)
    (8, 512, 512, 256, 1),  # too few keys to pay for the merge
])
def test_d256_small_grids_split_long_key_rows_across_ctas_as_measured(batch_heads, seq_q, seq_k, head_dim,
                                                                      kv_ctas):
    config = gf.heuristic_config(90, head_dim, 2, False, seq_q, seq_k, batch_heads)
    assert config == gf.Config(64, 64, 4, 2, kv_ctas=kv_ctas) and gf.constraints(config, head_dim) is None


@pytest.mark.parametrize("batch_heads,seq", [(16, 1000), (8, 2048), (16, 1024), (4, 4096)])
def test_d256_small_grids_past_a_wave_of_stage_1_take_the_two_warpgroup_tile(batch_heads, seq):
    # 256 blocks of 64 rows (one stage-1 CTA per SM): 128 CTAs of 128 rows instead.
    assert gf.heuristic_config(90, 256, 2, False, seq, seq, batch_heads) == gf.Config(128, 64, 8, 2, True)
    assert gf.heuristic_config(90, 256, 2, False, seq, 8192, batch_heads) == gf.Config(128, 64, 8, 2, True)


@pytest.mark.parametrize("items,pays", [
    (2816, True), (2752, True), (2048, True),  # the standard preset: 15.5-21.3 waves
    (176, True), (704, True),  # a last wave a third full (1.33, 5.33 waves)
    (132, False), (220, False), (256, False), (352, False), (1056, False), (1408, False), (1536, False),
])
def test_stream_k_only_where_it_measured_ahead(items, pays):
    assert gf.stream_k_pays(items) == pays


@pytest.mark.parametrize("batch_heads,seq,causal,expected", [
    (4, 2048, False, "stage 1"), (6, 2048, False, "ping-pong"),  # 128 / 192 blocks of 64 rows
    (8, 1024, True, "stage 1"), (12, 1024, True, "split"), (16, 1024, True, "ping-pong"),
    (8, 1536, True, "split"), (8, 768, True, "stage 1"), (16, 512, False, "stage 1"),
    (8, 2048, True, "split"),
])
def test_d128_small_grids_pick_the_tile_that_fills_the_sms(batch_heads, seq, causal, expected):
    config = gf.heuristic_config(90, 128, 2, causal, seq, seq, batch_heads)
    kind = "ping-pong" if config.pingpong else "split" if config.split_kv == 2 else "stage 1"
    assert kind == expected and gf.constraints(config, 128) is None
    if kind == "stage 1":
        assert (config.block_m, config.block_n, config.num_stages) == (64, 128, 2)


def test_kv_ctas_constraints_say_what_the_split_takes():
    assert gf.constraints(gf.Config(64, 128, 4, 2, kv_ctas=8), 64) is None
    assert gf.constraints(gf.Config(128, 64, 8, 3, kv_ctas=3), 128) is None
    assert "2 to 8" in gf.constraints(gf.Config(64, 128, 4, 2, kv_ctas=16), 64)
    assert "warp_specialize off" in gf.constraints(gf.Config(128, 128, 8, 2, True, kv_ctas=2), 64)
    assert gf.binary_params(gf.Config(64, 128, 4, 2, kv_ctas=4))["kv_ctas"] == 4


def test_constraints_take_two_or_three_consumer_warpgroups_and_say_why_not():
    for config in (gf.Config(192, 128, 12, 2, True), gf.Config(192, 128, 12, 3, True, True),
                   gf.Config(192, 64, 12, 2, True, True)):
        assert gf.constraints(config, 64) is None, config
    for head_dim in (64, 128):
        assert gf.constraints(gf.Config(128, 128, 8, 2, True, True), head_dim) is None
    assert "16 * num_warps" in gf.constraints(gf.Config(192, 128, 8, 2, True), 64)
    assert "128 or 192" in gf.constraints(gf.Config(256, 128, 16, 2, True), 64)
    assert "needs warp_specialize" in gf.constraints(gf.Config(192, 128, 12, 2), 64)
    assert "needs warp_specialize" in gf.constraints(gf.Config(64, 128, 4, 2, pingpong=True), 64)
    assert "needs warp_specialize" in gf.constraints(gf.Config(128, 128, 8, 2, pingpong=True), 64)
    # Three warpgroups at D=128: 160 registers a thread hold O, S and P of 64-key tiles
    # only; with 128-key tiles ptxas spills.
    assert "160 registers" in gf.constraints(gf.Config(192, 128, 12, 2, True), 128)
    assert gf.constraints(gf.Config(192, 64, 12, 2, True), 128) is None


def test_split_kv_constraints_say_what_the_split_kernel_takes():
    for w in (2, 3, 4):
        assert gf.constraints(gf.Config(64, 64, 4 * w, 1, True, split_kv=w), 64) is None
    assert "2 to 4" in gf.constraints(gf.Config(64, 64, 20, 1, True, split_kv=5), 64)
    assert "warp_specialize on" in gf.constraints(gf.Config(64, 64, 8, 1, split_kv=2), 64)
    assert "pingpong/persistent/stream_k off" in gf.constraints(gf.Config(64, 64, 8, 1, True, True, split_kv=2), 64)
    assert "num_warps=8" in gf.constraints(gf.Config(64, 64, 4, 1, True, split_kv=2), 64)
    assert "block_m=64" in gf.constraints(gf.Config(128, 64, 16, 1, True, split_kv=2), 64)
    # One ring per warpgroup plus fp32 merge buffers: four rings of two 128x128 stages do not fit.
    assert "shared memory" in gf.constraints(gf.Config(64, 128, 16, 2, True, split_kv=4), 128)
    assert "shared memory" in gf.constraints(gf.Config(128, 128, 8, 4, True, True), 128)


def test_consumer_registers_fill_the_register_file_as_triton_splits_it():
    # Triton 3.6 gives every thread 64K / threads (rounded down to 8) and the default
    # partition (consumer 0) what the workers leave; the producer's group keeps 24.
    for block_m, workers, default in ((128, 240, 240), (192, 160, 168)):
        groups = block_m // 64
        regs = gf.consumer_regs(gf.Config(block_m, 128, block_m // 16, 2, True))
        assert regs == workers and regs % 8 == 0
        maxnreg = 65536 // (128 * (groups + 1)) // 8 * 8
        assert (maxnreg * (groups + 1) - (groups - 1) * regs - 24) // 8 * 8 == default >= regs
        assert 128 * (default + (groups - 1) * regs + 24) <= 65536


def test_ws_forward_launches_64_row_q_and_o_blocks(monkeypatch):
    """The launch, recorded on CPU tensors: every consumer warpgroup reads and writes
    its own 64-row block, whatever block_m is; one CTA per work item (query block x
    head) unless persistent; split_kv launches its own kernel the same way."""
    seen = {}

    def recorder(fn):
        return lambda grid, args, constexprs, *rest: seen.update(fn=fn, grid=grid, args=args, constexprs=constexprs)

    monkeypatch.setattr(gf, "_LAUNCHERS", {fn: recorder(fn) for fn in gf._LAUNCHERS})
    monkeypatch.setattr(gf, "_device_facts", lambda index: (5, 4 << 20))  # 5 SMs, 4 MiB of L2
    q = torch.randn(2, 4, 300, 64, dtype=torch.bfloat16)
    config = gf.Config(192, 128, 12, 2, True, True)
    gf.forward(q, q, q, True, 0.125, config)
    desc_q, desc_k, desc_v, desc_o = seen["args"][:4]
    assert desc_q.block_shape == desc_o.block_shape == [1, 1, 64, 64]
    assert desc_k.block_shape == desc_v.block_shape == [1, 1, 128, 64]
    assert seen["grid"] == (2 * 8, 1, 1)
    assert seen["args"][-5:-3] == (8, 2 * 1024 * 1024 // (2 * 300 * 64 * 2))  # B*H, heads per causal chunk
    # No dynamic schedule and no stream-K: LSE stands in for the counter, the workspace and the plan.
    assert all(seen["args"][i] is seen["args"][4] for i in (-3, -2, -1))
    assert seen["constexprs"]["PINGPONG"] is True and seen["constexprs"]["CONSUMER_REGS"] == 160
    assert seen["constexprs"]["PERSISTENT"] is False and seen["constexprs"]["LAZY_RESCALE"] == 2  # lazy, max-free
    assert seen["fn"] is gf._gluon_fwd_ws_kernel
    assert gf.binary_params(config) == {"block_m": 192, "block_n": 128, "stages": 2, "lazy_rescale": 2,
                                        "pingpong": True, "persistent": False, "split_kv": 1, "stream_k": False}
    gf.forward(q, q, q, False, 0.125, gf.Config(192, 128, 12, 2, True, True, persistent=True))
    assert seen["grid"] == (5, 1, 1) and seen["constexprs"]["PERSISTENT"] is True
    gf.forward(q, q, q, True, 0.125, gf.Config(192, 128, 12, 2, True, True, persistent=True))
    counter = seen["args"][-3]  # persistent causal items are drawn from the stream's counters
    assert counter is launch.stream_counters(1, q.device) and counter.dtype == torch.int32
    assert int(counter[0]) == 0
    cut = gf.Config(192, 128, 12, 2, True, True, persistent=True, stream_k=True)
    gf.forward(q, q, q, False, 0.125, cut)
    # 16 items on 5 CTAs: 10 whole, the last 6 cut; a ticket and a 64-row state per cut
    # item and warpgroup, from the stream's counters and workspace.
    tickets, parts = seen["args"][-3:-1]
    assert seen["constexprs"]["STREAM_K"] is True and gf.stream_k_items(16, 5) == 6
    assert tickets.dtype == torch.int32 and tickets.data_ptr() == launch.stream_counters(18, q.device).data_ptr()
    assert parts.dtype == torch.float32 and parts.numel() >= 18 * 64 * (64 + 2)
    gf.forward(q, q, q, True, 0.125, cut)  # causal: pieces by the host's plan, two slots a CTA
    tickets, parts, plan = seen["args"][-3:]
    assert seen["constexprs"]["STREAM_K"] is True and plan.dtype == torch.int32 and plan.shape == (6, 4)
    assert plan is causal_plan.table(300, 300, 8, 192, 128, 5, q.device, 64)  # leads by 64 of its 84 padding rows
    assert seen["args"][-4] == 8  # one chunk of heads: the plan's ZIGZAG order
    assert tickets.data_ptr() == launch.stream_counters(2 * 5 * 3, q.device).data_ptr()
    assert parts.numel() >= 2 * 5 * 3 * 64 * (64 + 2)
    stage1 = gf.Config(64, 128, 4, 2, kv_ctas=4)
    gf.forward(q, q, q, True, 0.125, stage1)
    assert seen["fn"] is gf._gluon_fwd_kernel and seen["grid"] == (5 * 4, 8, 1)
    assert seen["constexprs"]["KV_CTAS"] == 4
    parts, tickets = seen["args"][5:7]  # after the LSE: the merge workspace, a ticket per block
    assert parts.dtype == torch.float32 and parts.numel() >= 5 * 8 * 4 * 64 * (64 + 2)
    assert parts.data_ptr() == launch.stream_workspace(1, q.device).data_ptr()  # the stream's, reused
    assert tickets.dtype == torch.int32 and tickets.data_ptr() == launch.stream_counters(40, q.device).data_ptr()
    gf.forward(q, q, q, True, 0.125, gf.Config(64, 128, 4, 2))  # no split: placeholders, never dereferenced
    assert seen["grid"] == (5, 8, 1) and seen["constexprs"]["KV_CTAS"] == 1
    assert seen["args"][5].numel() >= 1 and seen["args"][6].dtype == torch.int32
    gf.forward(q, q, q, True, 0.125, gf.Config(64, 64, 16, 2, True, split_kv=4))
    assert seen["fn"] is gf._gluon_fwd_split_kernel and seen["grid"] == (5 * 8, 1, 1)
    assert seen["args"][0].block_shape == seen["args"][1].block_shape == [1, 1, 64, 64]
    assert seen["constexprs"]["SPLIT_KV"] == 4 and seen["constexprs"]["CONSUMER_REGS"] == 112
    assert "PINGPONG" not in seen["constexprs"] and seen["args"][-1] is seen["args"][4]


def test_stream_k_cuts_only_what_leaves_the_last_wave_part_empty():
    assert gf.stream_k_items(2048, 132) == 132 + 68  # 15.5 waves: 14 whole, 1.5 cut
    assert gf.stream_k_items(4096, 132) == 136
    assert gf.stream_k_items(264, 132) == 0 and gf.stream_k_items(132, 132) == 0
    assert gf.stream_k_items(7, 5) == 7  # fewer than two waves: all cut
    for items, grid in ((2048, 132), (4096, 132), (7, 5), (1000, 3)):
        assert grid < gf.stream_k_items(items, grid) < 2 * grid  # each CTA's run is over one item long
    assert "needs persistent" in gf.constraints(gf.Config(128, 128, 8, 2, True, stream_k=True), 128)
    assert gf.constraints(gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True), 128) is None
    assert "stream_k off" in gf.constraints(gf.Config(64, 64, 8, 1, True, split_kv=2, stream_k=True), 64)
    cut = gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True)
    assert gf.stream_k(cut, causal=False) and gf.stream_k(cut, causal=True)
    assert gf.kernel_constexprs(cut, 128, True)["STREAM_K"] is True
    assert not gf.dynamic_schedule(cut, causal=True)  # causal pieces follow the host's plan, not a counter


@pytest.mark.parametrize("head_dim", [128, 96, 80])
@pytest.mark.parametrize("seq,batch_heads,plan", [
    (4096, 8, True), (3000, 8, True), (8192, 4, True),  # B*H <= 8: pairs or cuts
    (2048, 16, True), (4096, 16, True),  # one or two pairs of whole items a CTA fill the SMs
    (4096, 12, False), (3000, 16, False),  # cuts lost there, and pairs would leave SMs idle
    (4096, 64, False),  # the standard preset: eight pairs a CTA measured level; longest first
])
def test_causal_launches_run_by_a_plan_where_it_measured_ahead(head_dim, seq, batch_heads, plan):
    """Persistent causal launches of the D=128 build (and the dims padded to it) take a plan
    where it measured ahead (``causal_plan_pays``); full launches keep stream-K's rule."""
    config = gf.heuristic_config(90, head_dim, 2, True, seq, seq, batch_heads)
    assert gf.causal_plan_pays(True, seq, batch_heads) == plan
    # Whole 192-row items that balance on few heads take the plan's place (v63).
    few = gf.few_causal_items_balance(seq, batch_heads)
    plan = plan and not few
    assert config.persistent and config.stream_k == plan
    assert gf.stream_k(config, True) == plan and gf.dynamic_schedule(config, True) == (not plan)
    # Plans take turns; without one, only where O runs in two column parts (``_turns``), or on
    # the D=128 build's causal 192x64 tiles from 2k keys (three warpgroups, whole items drawn;
    # D=80 from 4k, D=96, whose O's second part has 32 columns, from 8k), or on few heads.
    three_by_64 = few or not plan and gf.causal_three_warpgroups_pay(seq, batch_heads, head_dim)
    assert config.pingpong == (plan or head_dim != 128 or three_by_64)
    assert (config.block_m == 192) == three_by_64
    assert gf.constraints(config, head_dim) is None
    full = gf.heuristic_config(90, head_dim, 2, False, seq, seq, batch_heads)
    if head_dim == 128:
        whole_192 = gf.three_warpgroups_read_less(seq, batch_heads)  # 192x64 tiles, whole items
        assert full.stream_k == (not whole_192 and gf.stream_k_pays(-(-seq // 128) * batch_heads))
    else:  # 192x64 tiles, with stream-K's tail where the last wave is part-empty (``_parts_config``)
        assert full.stream_k == gf.part_empty_last_wave(-(-seq // 192) * batch_heads)


@pytest.mark.parametrize("seq,batch_heads,few", [
    (3000, 16, True), (3000, 24, True), (3000, 32, True),  # 256-512 items, 128x128 drawn before
    (4096, 16, True), (8192, 8, True),  # 352 / 344 items, a plan before
    (2048, 16, False),  # 176 items: the longest (11 units) over a CTA's mean share (8); 0.85-0.94x
    (8192, 6, False), (4096, 8, False), (3000, 8, False),  # the longest item a CTA's share or more
    (4096, 64, False),  # 1408 items: causal_three_warpgroups_pay's grids
    (2048, 24, False),  # 2k query rows: not measured on few heads
])
@pytest.mark.parametrize("head_dim", [128, 112, 96, 88, 80, 72])
def test_few_causal_items_run_whole_192x64_items_where_they_balance(head_dim, seq, batch_heads, few):
    """Causal rows of the D=128 build on grids of at most four 192-row items a CTA
    (2026-11-28-h100-odd-peers/, calls 19-20: 1.03-1.34x over 128x128 items or the plan)."""
    assert gf.few_causal_items_balance(seq, batch_heads) is few
    config = gf.heuristic_config(90, head_dim, 2, True, seq, seq, batch_heads)
    if few:
        assert dataclasses.replace(_tiles(config), causal_tail=0) == gf._THREE_WARPGROUPS_CAUSAL_64
        assert gf.constraints(config, head_dim, causal=True) is None
    elif not gf.causal_three_warpgroups_pay(seq, batch_heads, gf.gemm_head_dim(head_dim)):
        assert config.block_m == 128


def test_stream_k_falls_back_to_whole_items_past_int32(monkeypatch):
    """The kernel's schedule counts cut (item, key tile) pairs in int32."""
    monkeypatch.setattr(gf, "_device_facts", lambda index: (132, 50 << 20))
    cut = gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True)
    assert gf.stream_k_fits(cut, 2048, 16384, 128, 0)  # 200 cut items x 128 tiles
    pairs = 2**31 // 200 + 1  # key tiles per item at which 200 cut items overflow
    assert gf.stream_k_fits(cut, 2048, (pairs - 1) * 128, 128, 0)
    assert not gf.stream_k_fits(cut, 2048, pairs * 128, 128, 0)
    assert gf.stream_k_fits(cut, 4096, 2**40, 66, 0)  # 2112 items: none cut


def test_causal_chunk_keeps_kv_within_half_of_l2():
    assert gf.causal_chunk(512, 128, 2, 1, 50 << 20) == (25 << 20) // (2 * 512 * 128 * 2)
    assert gf.causal_chunk(512, 128, 2, 4, 50 << 20) == 4 * ((25 << 20) // (2 * 512 * 128 * 2))
    assert gf.causal_chunk(1 << 20, 128, 2, 1, 50 << 20) == 1  # one head larger than L2 still runs


def test_one_wave_tail_caps_short_d128_rows_only():
    assert gf.one_wave_tail(1024, 1024, 128, 128, 132) == 17  # 8 items a head: ~one wave of items
    assert gf.one_wave_tail(2048, 2048, 128, 192, 132) == 12  # 11 items a head
    assert gf.one_wave_tail(64, 2048, 128, 192, 132) == 132  # one item a head
    assert gf.one_wave_tail(1024, 1024, 128, 128, 132) < gf.causal_chunk(1024, 128, 2, 1, 50 << 20)
    assert gf.one_wave_tail(1024, 1024, 96, 128, 132) == gf.one_wave_tail(1024, 1024, 80, 128, 132) == 17  # the build
    for args in [(4096, 4096, 128), (1024, 1024, 64), (2048, 2048, 64), (4096, 4096, 96), (1024, 1024, 256)]:
        assert gf.one_wave_tail(*args, 128, 132) is None  # the half-L2 rule stands


def test_tail_heads_take_the_configs_waves_else_the_rule():
    facts = (132, 50 << 20)
    turns = gf.Config(128, 128, 8, 2, True, True, persistent=True)
    for waves, heads in [(1, 17), (2, 34), (3, 51)]:  # 8 items a head at S=1k: 17 heads a wave
        config = dataclasses.replace(turns, causal_tail=waves)
        assert gf.tail_heads(config, True, 1024, 1024, 128, 2, 1, facts) == heads
    assert gf.tail_heads(dataclasses.replace(turns, causal_tail=2), True, 1024, 4096, 96, 2, 4, facts) == 34
    assert gf.tail_heads(turns, True, 1024, 1024, 128, 2, 1, facts) == gf.one_wave_tail(1024, 1024, 128, 128, 132)
    assert gf.tail_heads(turns, True, 4096, 4096, 128, 2, 1, facts) == gf.causal_chunk(4096, 128, 2, 1, 50 << 20)
    assert gf.tail_heads(turns, False, 1024, 1024, 128, 2, 1, facts) == gf.causal_chunk(1024, 128, 2, 1, 50 << 20)


def test_causal_tail_constraints_say_where_it_applies():
    turns = gf.Config(128, 128, 8, 2, True, True, persistent=True)
    assert gf.constraints(dataclasses.replace(turns, causal_tail=gf.MAX_TAIL_WAVES), 128, True) is None
    assert gf.constraints(dataclasses.replace(turns, causal_tail=2), 128) is None  # causal unknown: allowed
    assert "full rows ignore it" in gf.constraints(dataclasses.replace(turns, causal_tail=2), 128, False)
    assert "0 (the rule) to 4" in gf.constraints(dataclasses.replace(turns, causal_tail=5), 128, True)
    assert "0 (the rule) to 4" in gf.constraints(dataclasses.replace(turns, causal_tail=-1), 128, True)
    for config in (gf.Config(128, 128, 8, 2, True, causal_tail=1),
                   gf.Config(128, 128, 8, 2, True, persistent=True, stream_k=True, causal_tail=1)):
        assert "needs persistent with stream_k off" in gf.constraints(config, 128, True)
    assert gf.constraints(turns, 128, False) is None  # 0 is every launch's


def test_heuristic_tail_waves_two_at_d80_d96_three_on_gqa_on_short_causal_rows_one_at_d96_to_4k():
    def waves(head_dim, seq, causal=True, batch_heads=None, group=1):
        return gf.heuristic_config(90, head_dim, 2, causal, seq, seq, batch_heads or 16384 // seq * 16,
                                   group).causal_tail
    assert waves(80, 1024) == waves(96, 1024) == waves(96, 768) == 2
    assert waves(128, 1024, group=4) == waves(128, 1024, group=2) == waves(112, 1024, group=8) == 3
    assert waves(128, 2048, group=4) == waves(64, 1024, batch_heads=512, group=4) == 0
    assert waves(120, 1024, group=4) == waves(104, 1024, group=2) == 0  # rows of 8 mod 16 half-words
    assert waves(128, 512, group=4) == 0  # stage 1: no persistent order
    assert waves(96, 1024, batch_heads=128) == 2  # B=4 H=32: measured level
    for head_dim in (64, 72, 88, 104, 112, 120, 128):  # 72 / 88: D=80 / 96's GEMMs, measured slower
        assert waves(head_dim, 1024) == 0, head_dim
    assert waves(96, 2048) == waves(96, 3000) == waves(96, 4096) == 1  # with the packed sums
    assert waves(96, 8192) == waves(88, 4096) == waves(80, 2048) == waves(80, 4096) == 0
    assert waves(96, 1024, causal=False) == 0
    assert waves(96, 1024, batch_heads=8) == 0  # a small grid: no persistent order


def test_persistent_needs_warp_specialize_and_room_for_o():
    assert "needs warp_specialize" in gf.constraints(gf.Config(64, 128, 4, 2, persistent=True), 64)
    plain, persistent = gf.Config(128, 128, 8, 3, True), gf.Config(128, 128, 8, 3, True, persistent=True)
    assert gf.constraints(plain, 128) is None
    assert "shared memory" in gf.constraints(persistent, 128)  # O's own buffer: 32 KiB more
    assert gf.smem_bytes(persistent, 128) - gf.smem_bytes(plain, 128) == 128 * 128 * 2


@pytest.mark.parametrize("head_dim,dtype,causal,config", [
    # Two stages, one CTA per item: with max_free (x live to the sum check) ptxas spills 16 B
    # causal, and 8 B full since the epilogue's lg2 / rcp approximations; the shipped
    # three-stage persistent builds do not (the next two).
    (64, "bf16", False, gf.Config(192, 128, 12, 2, True, max_free=False)),
    (64, "fp16", True, gf.Config(192, 128, 12, 2, True, max_free=False)),
    (64, "bf16", True, gf.Config(192, 128, 12, 2, True, True, max_free=False)),
    (64, "bf16", True, gf.Config(192, 128, 12, 3, True, True, persistent=True)),
    (64, "fp16", False, gf.Config(192, 128, 12, 3, True, True, persistent=True, stream_k=True)),
    (64, "bf16", False, gf.Config(128, 128, 8, 2, True, True)),
    (128, "bf16", False, gf.Config(128, 128, 8, 2, True, True)),
    (128, "fp16", True, gf.Config(128, 128, 8, 3, True, True)),
    (128, "bf16", True, gf.Config(192, 64, 12, 2, True, True)),
    (64, "fp16", False, gf.Config(64, 128, 4, 2, kv_ctas=8)),  # the small grids' key split
    (128, "bf16", True, gf.Config(64, 64, 4, 3, kv_ctas=4)),
], ids=lambda x: _config_id(x) if isinstance(x, gf.Config) else str(x))
def test_multi_warpgroup_and_pingpong_configs_compile_for_sm90_without_spills(head_dim, dtype, causal, config):
    from flashcore.profile.resources import compile_gluon_fwd

    report = compile_gluon_fwd(head_dim, dtype, causal, config)
    assert report.ok, report.problems()
    assert not report.wgmma_serialized  # any ptxas C75xx: the GEMMs would lose their overlap
    assert report.shared_bytes >= gf.smem_bytes(config, head_dim)


@pytest.mark.parametrize("head_dim,causal", [(128, False), (128, True), (64, True), (64, False), (256, True)])
def test_heuristic_configs_compile_for_sm90_without_spills(head_dim, causal):
    from flashcore.profile.resources import STANDARD_LAUNCH, compile_gluon_fwd

    config = gf.heuristic_config(90, head_dim, 2, causal, 8192, 8192, 32)
    for launch in (None, STANDARD_LAUNCH):  # generic, and specialised as a launch is
        report = compile_gluon_fwd(head_dim, "bf16", causal, config, launch)
        assert report.ok, (launch, report.problems())
        assert report.shared_bytes >= gf.smem_bytes(config, head_dim)  # the rings are really there


def _run_spy(code: str, *args, timeout: float | None = None):
    """Run a spy in a fresh process (Gluon compiles only without the interpreter), with
    ``args`` as its argv; its last stdout line, as JSON. Past ``timeout`` seconds the test
    fails: the spy hung."""
    import json
    import os
    import subprocess
    import sys

    env = {**os.environ, "TRITON_INTERPRET": "0"}
    try:
        proc = subprocess.run([sys.executable, "-c", code, *map(str, args)], env=env, capture_output=True, text=True,
                              timeout=timeout)
    except subprocess.TimeoutExpired:
        pytest.fail(f"the spy did not finish in {timeout} s with {args} (a hang?)")
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout.strip().splitlines()[-1])


_SPY = """
import json, triton
from flashcore.kernels.gluon_fwd import Config
from flashcore.profile.resources import STANDARD_LAUNCH, compile_gluon_fwd
sources, real = [], triton.compile
triton.compile = lambda src, *a, **k: (sources.append(src), real(src, *a, **k))[1]
config = Config(192, 128, 12, 2, True, True, max_free=False)  # max_free spills 16 B in this (unshipped) build
reports = [compile_gluon_fwd(64, "bf16", True, config, launch) for launch in (None, STANDARD_LAUNCH)]
index = {n: (i,) for i, n in enumerate(sources[0].fn.arg_names)}
print(json.dumps([dict(ok=r.ok, launch=r.launch, group=src.constants.get(index["group"]),
                       seq_q=src.attrs.get(index["seq_q"], [])) for r, src in zip(reports, sources)]))
"""


def test_the_gluon_compile_specialises_like_a_launch():
    # Triton specialises every launch on its integers (a 1 becomes a constant, a multiple of
    # 16 is marked divisible), and a binary can spill only so: the former D=64 causal S>=8k
    # heuristic (192x128, one CTA per item) did, 144 B on the H100 and in this compile, until
    # the causal mask lost its Sk compare (2026-11-22-h100-d64-causal/, -causal-mask/).
    from flashcore.profile.resources import STANDARD_LAUNCH

    generic, launch = _run_spy(_SPY)
    assert generic["ok"] and launch["ok"]
    assert generic["launch"] is None and launch["launch"] == STANDARD_LAUNCH
    assert generic["group"] is None and launch["group"] == 1  # MHA: group = 1, a constant
    assert ["tt.divisibility", 16] not in generic["seq_q"] and ["tt.divisibility", 16] in launch["seq_q"]


_PDL_SPY = """
import json, triton
from flashcore.kernels.gluon_fwd import Config
from flashcore.profile.resources import compile_gluon_fwd
ptx, real = [], triton.compile
triton.compile = lambda *a, **k: (lambda c: (ptx.append(c.asm["ptx"]), c)[1])(real(*a, **k))
configs = [Config(64, 128, 4, 2), Config(128, 128, 8, 2, True, persistent=True), Config(64, 64, 8, 2, True, split_kv=2)]
for config in configs:
    assert compile_gluon_fwd(64, "bf16", True, config).ok
trigger = "griddepcontrol.launch_dependents"
print(json.dumps([(p.count("griddepcontrol.wait"), p.count(trigger), p.find(trigger) > p.find("wgmma.mma_async"))
                  for p in ptx]))
"""


def test_every_partition_waits_for_the_previous_grid_before_touching_memory():
    # Launched with PDL, a kernel may start while the stream's previous kernel still
    # runs. Worker partitions start at warp_specialize, past the prologue's wait, so each
    # waits itself: 1 + partitions waits (stage 1: the prologue only). One trigger: in the
    # prologue of the warp-specialised kernel, after the KV loop of the others.
    counts = _run_spy(_PDL_SPY)
    assert [waits >= expected for (waits, _, _), expected in zip(counts, (1, 4, 4))] == [True] * 3, counts
    assert [(trigger, after_a_gemm) for _, trigger, after_a_gemm in counts] == [(1, True), (1, False), (1, True)]


_SYNC_SPY = """
import json, triton
from flashcore.kernels.gluon_fwd import Config
from flashcore.kernels.ptx_sync import MARK, drop_marked_barriers
from flashcore.profile.resources import compile_gluon_fwd
ptx, compile_ = [], triton.compile
triton.compile = lambda *a, **k: (lambda c: (ptx.append(c.asm["ptx"]), c)[1])(compile_(*a, **k))
for config in (Config(64, 128, 4, 2), Config(192, 128, 12, 2, True, True, max_free=False),
               Config(64, 64, 8, 2, True, split_kv=2)):
    assert compile_gluon_fwd(64, "bf16", True, config).ok
print(json.dumps([(p.count(MARK), drop_marked_barriers(p)[2]) for p in ptx]))
"""


def test_the_kv_loops_release_and_wait_without_partition_barriers():
    # The PTX that reaches ptxas (compiled now or from Triton's cache) has marks per KV
    # loop (unmasked and masked): before the K wait; in stage 1 with one warpgroup before
    # the two refills' expects and copies; warp-specialised before the two releases. No
    # marked barrier is left (the pass would find one to drop). Unmarked, and so behind
    # their partition barriers: the ping-pong turns and the releases of the tiles past a
    # warpgroup's rows (``_pass_unseen``): passed by warp 0 alone, a turn let a lagging
    # warp be lapped on the barrier's parity, and three-warpgroup causal launches hung in
    # fp16 (2026-11-27-h100-causal-parts/). The split kernel keeps its barriers: without
    # them its small grids ran 2.5% slower (2026-11-23-h100-lean-sync/).
    assert _run_spy(_SYNC_SPY) == [[2 * 5, 0], [3 * 2 * 3, 0], [0, 0]]


_TURNS_SPY = """
import sys, torch
from flashcore.kernels import gluon_fwd as gf
b, h, s, d, calls = (int(x) for x in sys.argv[1:6])
config = gf.heuristic_config(90, d, 2, True, s, s, b * h) if sys.argv[6] == "auto" else gf._THREE_WARPGROUPS_CAUSAL_64
g = torch.Generator(device="cuda").manual_seed(s + d)
q, k, v = (torch.randn(b, h, s, d, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
run = gf.prepare(q, k, v, True, d ** -0.5, config)
for _ in range(calls):
    run(q, k, v)
torch.cuda.synchronize()
print(config.num_warps)
"""


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("cell,warps", [((8, 16, 2048, 128, 40000, "s3"), 12), ((2, 16, 8192, 64, 20000, "auto"), 12),
                                        ((16, 16, 1024, 128, 20000, "auto"), 8)],
                         ids=["d128-192x64s3-s2k", "d64-auto-s8k", "d128-auto-s1k-named"])
def test_ping_pong_turns_never_hang_over_many_launches(cell, warps):
    # Three consumer warpgroups, causal, fp16 (the sum check's redo lags a warp): with turns
    # passed by warp 0 alone these hung after 3k-19k and 6k calls (2026-11-27-h100-causal-parts/,
    # calls 3-5); here twice the most, about 5 s of GPU time each. Two warpgroups (auto's
    # 128x128 at S=1k) take named turns, each warp arriving by itself. A hang is this test's
    # failure: its process runs under a time limit far above its work.
    assert _run_spy(_TURNS_SPY, *cell, timeout=240) == warps


_NAMED_TURNS_SPY = """
import json, re, triton
from flashcore.kernels import gluon_fwd as gf
from flashcore.profile.resources import compile_gluon_fwd
ptx, compile_ = [], triton.compile
triton.compile = lambda *a, **k: (lambda c: (ptx.append(c.asm["ptx"]), c)[1])(compile_(*a, **k))
for d, config in ((128, gf.Config(128, 128, 8, 2, True, True, persistent=True)), (64, gf._THREE_WARPGROUPS_CAUSAL_64)):
    assert compile_gluon_fwd(d, "bf16", True, config).ok
ops = r"(bar|barrier)\\.(sync|arrive)(?:\\.aligned)?\\s+(\\d+)(?:,\\s*(\\d+))?;"
print(json.dumps([sorted(set(re.findall(ops, p))) for p in ptx]))
"""


def test_named_turns_take_barriers_that_triton_leaves_free():
    # Two consumer warpgroups pass their turns on named barriers TURN_BARRIER + wg (256
    # threads: the waiting warpgroup and the one before it); Triton's partition barriers
    # must stay below them, or a turn would complete on a partition's arrivals and hang.
    # Three warpgroups keep one mbarrier a turn (``named_turns``).
    two, three = _run_spy(_NAMED_TURNS_SPY)
    turn_ids = {int(i) for _, _, i, n in two if n == "256"}
    assert turn_ids == {gf.TURN_BARRIER, gf.TURN_BARRIER + 1}
    assert {op for op, _, _, n in two if n == "256"} == {"bar"}
    assert {kind for _, kind, _, n in two if n == "256"} == {"sync", "arrive"}
    partitions = {int(i) for _, _, i, n in two + three if n != "256"}
    assert partitions and max(partitions) < gf.TURN_BARRIER
    assert not [op for op in three if op[3] == "256"]
    assert gf.named_turns(2) and not gf.named_turns(3)


def test_the_offline_gate_reports_the_worse_gluon_compile(monkeypatch):
    from flashcore.profile import offline, resources

    def fake(head_dim, dtype, causal, config, launch=None):
        return resources.ResourceReport(90, head_dim, dtype, causal, config.as_dict(), registers=160,
                                        spill_bytes=144 if launch else 0, stack_bytes=0, shared_bytes=1024,
                                        smem_limit=227 * 1024, launch=launch)

    monkeypatch.setattr(resources, "compile_gluon_fwd", fake)
    (report,) = offline._compile(offline.Task(90, 64, "bf16", True, gf.Config(192, 128, 12, 2, True, True), "gluon"))
    assert report.spill_bytes == 144 and "specialised as a launch" in report.problems()[0]


def _without_d32_tiles(config, head_dim, causal, seq):
    """The D=32 build's config as another head dim on it gets it: stage 1's 64-key tiles are
    D=32's own (v65); causal rows of at most 1k keys run 64x64 at every head dim of the build."""
    if config == gf._STAGE1_D32 and head_dim != 32 and not (causal and seq <= 1024):
        return gf._STAGE1
    return config


@pytest.mark.parametrize("head_dim,build", [(16, 32), (24, 32), (32, 32), (40, 64), (48, 64), (56, 64), (64, 64), (72, 128),
                                            (80, 128), (96, 128), (120, 128), (128, 128), (136, 256), (192, 256),
                                            (256, 256)])
def test_head_dims_between_the_builds_run_the_next_build_up(head_dim, build):
    t = torch.zeros(1, 2, 64, head_dim, dtype=torch.bfloat16)
    assert gf.padded_head_dim(head_dim) == build
    assert gf.supports(t, t, t, 90) is None
    # The descriptors' block spans the build's columns (TMA zero-fills past D and clips O's
    # store); configs (with turns where O runs in parts) and shared-memory sums are the
    # build's. HEAD_DIM is D up to 16: the S GEMM's columns.
    assert gf._desc(t, 64).block_shape == [1, 1, 64, build]
    assert gf._desc(t, 64).shape == [1, 2, 64, head_dim]
    config = gf.Config(128, 128, 8, 2, True, persistent=True)
    assert gf.kernel_constexprs(config, head_dim, False)["HEAD_DIM"] == -(-head_dim // 16) * 16
    assert gf.smem_bytes(config, head_dim) == gf.smem_bytes(config, build)
    split = len(gf.o_parts(gf.gemm_head_dim(head_dim))) == 2
    for causal, seq, bh in ((False, 4096, 64), (True, 4096, 64), (True, 512, 8), (False, 1024, 512)):
        own = _tiles(gf.heuristic_config(90, build, 2, causal, seq, seq, bh))
        if not (gf.small_grid(seq, bh) or own.warp_specialize) and gf.stage1_lags(head_dim, causal, seq):
            own = gf._STAGE1_INSTEAD[build]
        own = _without_d32_tiles(own, head_dim, causal, seq)
        if split and own == gf._THREE_WARPGROUPS_CAUSAL_64 and gf.gemm_head_dim(head_dim) > 80:
            own = gf.Config(128, 128, 8, 2, True, persistent=True)  # O's 32-column part: from 8k keys
        if split and not gf.small_grid(seq, bh):
            own = gf._parts_config(own, head_dim, causal, seq, seq, bh)
        if causal and own.persistent and not own.stream_k:  # the tail is the head dim's (D=96: one wave to 4k)
            own = dataclasses.replace(own, causal_tail=gf.tail_waves(head_dim, seq, 1))
        own = dataclasses.replace(own, masked_free=gf.masked_free_pays(head_dim, causal, own))
        assert gf.heuristic_config(90, head_dim, 2, causal, seq, seq, bh) == own


@pytest.mark.parametrize("head_dim,chunks", [(16, (16,)), (24, (32,)), (32, (32,)), (40, (32, 16)), (48, (32, 16)),
                                             (56, (64,)), (64, (64,)), (72, (64, 16)), (96, (64, 32)),
                                             (112, (64, 32, 16)), (128, (128,)), (144, (128, 16)),
                                             (240, (128, 64, 32, 16)), (256, (256,))])
def test_the_s_gemm_skips_the_zero_columns_in_power_of_two_chunks(head_dim, chunks):
    # wgmma's K step is 16 and Gluon's shapes are powers of two.
    gemm = gf.gemm_head_dim(head_dim)
    assert gemm % 16 == 0 and head_dim <= gemm < head_dim + 16
    assert gf.s_chunks(gemm) == chunks and sum(chunks) == gemm


@pytest.mark.parametrize("head_dim,parts", [(16, ((0, 16),)), (24, ((0, 32),)), (40, ((0, 64),)), (48, ((0, 64),)),
                                            (64, ((0, 64),)), (72, ((0, 64), (64, 16))),
                                            (80, ((0, 64), (64, 16))), (96, ((0, 64), (64, 32))),
                                            (112, ((0, 128),)), (128, ((0, 128),)), (160, ((0, 128), (128, 32))),
                                            (192, ((0, 128), (128, 64))), (240, ((0, 256),))])
def test_o_runs_in_parts_that_cut_columns_and_those_builds_take_turns(head_dim, parts):
    gemm = gf.gemm_head_dim(head_dim)
    assert gf.o_parts(gemm) == parts
    assert parts[-1][0] + parts[-1][1] >= gemm  # every column up to D has a part
    split = len(parts) == 2
    on_128 = split and gf.padded_head_dim(head_dim) == 128
    for causal, seq in ((False, 4096), (True, 4096), (True, 8192), (False, 1024), (True, 1024), (True, 512)):
        config = _tiles(gf.heuristic_config(90, head_dim, 2, causal, seq, seq, 64))
        build = _tiles(gf.heuristic_config(90, gf.padded_head_dim(head_dim), 2, causal, seq, seq, 64))
        if not build.warp_specialize and gf.stage1_lags(head_dim, causal, seq):
            build = gf._STAGE1_INSTEAD[gf.padded_head_dim(head_dim)]
        build = _without_d32_tiles(build, head_dim, causal, seq)
        if on_128 and not causal and seq >= 2048:
            assert config == gf.Config(192, 64, 12, 2, True, pingpong=True, persistent=True, packed_sums=2)
        elif on_128 and causal and seq >= (4096 if parts[-1][1] == 16 else 8192):  # 32 columns: from 8k keys
            assert config == gf._THREE_WARPGROUPS_CAUSAL_64
        elif on_128 and causal and seq >= 4096:  # D=96: packed sums and one wave (_parts_config, tail_waves)
            sums_tail = 1 if head_dim == 96 else 0
            assert config == gf.Config(128, 128, 8, 2, True, pingpong=True, persistent=True,
                                       packed_sums=sums_tail, causal_tail=sums_tail)
        elif not split and causal and seq >= 4096 and gf.padded_head_dim(head_dim) == 128:
            assert config == gf._THREE_WARPGROUPS_CAUSAL_64
        elif on_128 and causal and seq == 1024:  # D=80 / 96: packed sums, a tail of two waves
            tail = 2 if head_dim in (80, 96) else 0
            assert config == gf.Config(128, 128, 8, 2, True, pingpong=True, persistent=True,
                                       packed_sums=int(tail > 0), causal_tail=tail)
        elif not split and build.pingpong and gf.padded_head_dim(head_dim) == 256 and gf.gemm_head_dim(head_dim) != 256:
            assert config == dataclasses.replace(build, pingpong=False)  # D=256's causal turns: measured there only
        elif split and build.warp_specialize and not build.pingpong:
            # Turns on causal rows sum the fp32 P (v50).
            assert config == dataclasses.replace(build, pingpong=True, stream_k=False,
                                                 packed_sums=0 if causal else build.packed_sums)
        else:
            assert config == build
        assert not gf.constraints(config, head_dim)


def test_descriptor_layout_is_the_default_for_its_block():
    from triton.experimental.gluon import language as gl

    t = torch.zeros(1, 2, 64, 128, dtype=torch.bfloat16)  # CPU is enough to build a descriptor
    desc = gf._desc(t, 64)
    assert desc.block_shape == [1, 1, 64, 128]
    assert desc.layout == gl.NVMMASharedLayout.get_default_for([1, 1, 64, 128], gl.bfloat16)
    assert gf._desc(t, 64).layout is desc.layout  # cached, not rebuilt per launch


def test_max_free_is_the_lazy_rescales_third_level():
    """max_free (the default) runs as LAZY_RESCALE=2, what the launch passes and the tuner reads
    back from the binary; it is a form of the lazy rescale, so an eager config ignores it."""
    free = gf.Config(128, 128, 8, 2, True, persistent=True)
    assert gf.kernel_constexprs(free, 128, True)["LAZY_RESCALE"] == 2 == gf.binary_params(free)["lazy_rescale"]
    assert gf.kernel_constexprs(gf.Config(64, 128, 4, 2, max_free=False), 64, False)["LAZY_RESCALE"] == 1
    assert gf.kernel_constexprs(gf.Config(64, 128, 4, 2, lazy_rescale=False), 64, False)["LAZY_RESCALE"] == 0
    assert gf.constraints(gf.Config(64, 128, 4, 2, lazy_rescale=False), 64) is None
