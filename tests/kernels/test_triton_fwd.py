"""The portable Triton forward against the fp64 reference, under the 2x-PyTorch rule.

Runs on the GPU when there is one, else under TRITON_INTERPRET=1 on small shapes.
"""

import math

import pytest
import torch

from flashcore import attention
from flashcore.bench.correctness import Case, judge, make_inputs, poisoned_like
from flashcore.dispatch import arch_of, triton_config
from flashcore.kernels import launch, triton_fwd
from flashcore.reference import default_scale

HEAD_DIMS = (16, 32, 64, 80, 96, 128, 192, 256)
DTYPES = (torch.float16, torch.bfloat16)


def _check(case: Case, device, seed=0, magnitude=1.0, scale=None):
    q, k, v = make_inputs(case, device, seed=seed, magnitude=magnitude)
    out, lse = attention(q, k, v, causal=case.causal, scale=scale, return_lse=True, backend="triton")
    assert out.dtype == q.dtype and out.shape == q.shape
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, scale=scale, lse=lse.cpu())
    assert verdict.ok, f"{case.label()}: {verdict}"


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
@pytest.mark.parametrize("head_dim", HEAD_DIMS)
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_every_head_dim(kernel_device, head_dim, dtype, causal):
    _check(Case(1, 2, 37, head_dim, seq_k=45, causal=causal, dtype=dtype), kernel_device)


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
@pytest.mark.parametrize("seq", [1, 7, 64, 100, 257])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_odd_sequence_lengths(kernel_device, seq, causal, dtype):
    _check(Case(2, 2, seq, 64, causal=causal, dtype=dtype), kernel_device, seed=seq)


@pytest.mark.parametrize("seq_q,seq_k", [(1, 100), (7, 257), (100, 7), (257, 64), (64, 1), (130, 129)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_seq_q_differs_from_seq_k(kernel_device, seq_q, seq_k, causal):
    _check(Case(1, 2, seq_q, 32, seq_k=seq_k, causal=causal, dtype=torch.float16), kernel_device)


@pytest.mark.parametrize("heads_q,heads_kv", [(4, 1), (4, 2), (6, 3), (8, 2)])
@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_gqa(kernel_device, heads_q, heads_kv, causal):
    _check(Case(2, heads_q, 33, 32, heads_kv=heads_kv, seq_k=70, causal=causal, dtype=torch.bfloat16), kernel_device)


@pytest.mark.parametrize("causal", [False, True], ids=["full", "causal"])
def test_bshd_transposed_views(kernel_device, causal):
    case = Case(2, 3, 50, 64, seq_k=77, causal=causal, dtype=torch.float16, layout="bshd")
    q, _, _ = make_inputs(case, kernel_device)
    assert not q.is_contiguous()
    _check(case, kernel_device)


def test_sliced_head_dim_stride(kernel_device):
    # Every other element of the last dim: stride_d = 2, nothing contiguous.
    g = torch.Generator().manual_seed(3)
    big = [torch.randn(1, 2, 40, 128, generator=g).half().to(kernel_device) for _ in range(3)]
    q, k, v = (t[..., ::2] for t in big)
    out, lse = attention(q, k, v, return_lse=True, backend="triton")
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=False, lse=lse.cpu()).ok


@pytest.mark.parametrize("dtype", DTYPES, ids=["fp16", "bf16"])
def test_large_magnitudes_stress_softmax(kernel_device, dtype):
    _check(Case(1, 2, 65, 64, causal=True, dtype=dtype), kernel_device, seed=7, magnitude=10.0)


def test_every_element_written(kernel_device):
    case = Case(2, 4, 75, 64, heads_kv=2, seq_k=130, causal=True, dtype=torch.float16)
    q, k, v = make_inputs(case, kernel_device, seed=5)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    scale = default_scale(64)
    cfg = triton_config(arch_of(q.device), q.dtype, 64, True, 75, 130)
    triton_fwd.forward(q, k, v, True, scale, cfg, out=out, lse=lse)
    assert not out.isnan().any() and not lse.isnan().any()
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu()).ok


@pytest.mark.parametrize("block_m,block_n", [(16, 16), (32, 64), (64, 32), (128, 64)])
def test_configs_agree(kernel_device, block_m, block_n):
    # Tile sizes must not change the answer beyond rounding: exercises tails and
    # causal diagonal tiles at several alignments.
    case = Case(1, 2, 90, 32, seq_k=111, causal=True, dtype=torch.float16)
    q, k, v = make_inputs(case, kernel_device, seed=11)
    cfg = triton_fwd.Config(block_m=block_m, block_n=block_n, num_warps=4, num_stages=2)
    out, lse = triton_fwd.forward(q, k, v, True, 0.3, cfg)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, scale=0.3, lse=lse.cpu()).ok


@pytest.mark.parametrize("split_kv", [2, 3, 4, 8])
@pytest.mark.parametrize("seq_q,seq_k,causal", [(90, 111, True), (40, 200, False), (75, 30, True), (1, 257, False)])
def test_split_kv_matches_reference(kernel_device, split_kv, seq_q, seq_k, causal):
    # More splits than KV tiles (75x30 at 8 splits) leaves some splits empty; Sq > Sk causal
    # leaves rows with no key (out 0, lse -inf). Poisoned outputs: every row is written once.
    case = Case(2, 4, seq_q, 64, heads_kv=2, seq_k=seq_k, causal=causal, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, kernel_device, seed=split_kv)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    cfg = triton_fwd.Config(block_m=32, block_n=16, num_warps=4, num_stages=2, split_kv=split_kv)
    triton_fwd.forward(q, k, v, causal, 0.2, cfg, out=out, lse=lse)
    assert not out.isnan().any() and not lse.isnan().any()
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=causal, scale=0.2, lse=lse.cpu()).ok


@pytest.mark.parametrize("chunk", [1, 4])
def test_split_merge_chunks_agree(kernel_device, monkeypatch, chunk):
    # The merge loads 1 (sm_80/sm_89, large tiles) or 4 (sm_90 decode) partials at a time; 6
    # splits leave a partial last chunk of 4.
    monkeypatch.setattr(triton_fwd, "merge_chunk", lambda *a: chunk)
    case = Case(1, 8, 1, 64, heads_kv=2, seq_k=300, dtype=torch.float16)
    q, k, v = make_inputs(case, kernel_device, seed=chunk)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    cfg = triton_fwd.Config(block_m=16, block_n=16, num_warps=4, num_stages=2, split_kv=6, pack_gqa=True)
    triton_fwd.forward(q, k, v, False, 0.2, cfg, out=out, lse=lse)
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=False, scale=0.2, lse=lse.cpu()).ok


def test_split_kv_leaves_its_tickets_at_zero(kernel_device):
    # The counters are shared by every later launch on this stream: a leftover count would
    # make the next call merge too early.
    case = Case(1, 2, 64, 32, seq_k=128, dtype=torch.float16)
    cfg = triton_fwd.Config(block_m=16, block_n=16, num_warps=4, num_stages=2, split_kv=4)
    for seed in (1, 2):
        q, k, v = make_inputs(case, kernel_device, seed=seed)
        out, lse = triton_fwd.forward(q, k, v, False, 0.2, cfg)
        assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=False, scale=0.2, lse=lse.cpu()).ok
    tickets = launch.stream_counters(1, q.device)
    assert int(tickets.count_nonzero()) == 0


def test_heuristic_is_pure_and_frozen():
    a = triton_fwd.heuristic_config(90, 128, 2, True, 4096, 4096)
    b = triton_fwd.heuristic_config(90, 128, 2, True, 4096, 4096)
    assert a == b
    with pytest.raises(Exception):
        a.block_m = 1  # frozen
    small = triton_fwd.heuristic_config(90, 64, 2, False, 1, 4096)
    assert small.block_m == 16  # a 1-row query does not get a 128-row tile


@pytest.mark.parametrize("seq_q,seq_k,batch_heads,splits", [
    (1, 8192, 8, 16), (1, 8192, 32, 4), (128, 8192, 8, 8),  # decode-like: H100 sweep picks
    (512, 512, 8, 1),  # the seed shape: splitting was slower
    (1, 8192, 512, 1), (4096, 4096, 64, 1),  # grids that fill the GPU
])
def test_heuristic_splits_keys_only_for_sub_wave_grids(seq_q, seq_k, batch_heads, splits):
    cfg = triton_fwd.heuristic_config(90, 64 if seq_q == 128 else 128, 2, False, seq_q, seq_k, batch_heads)
    assert cfg.split_kv == splits


def test_block_d_pads_to_power_of_two():
    assert [triton_fwd.block_d(d) for d in (16, 80, 96, 128, 192, 256)] == [16, 128, 128, 128, 256, 256]
    assert math.log2(triton_fwd.block_d(40)).is_integer()


def test_pdl_only_on_sm90_and_where_keys_are_not_split():
    # Measured on the H100: PDL wins 5% at the seed, loses 2.4% on split-KV launches;
    # griddepcontrol does not assemble below sm_90.
    whole = triton_fwd.Config(block_m=64, block_n=64, num_warps=4, num_stages=2)
    split = triton_fwd.Config(block_m=64, block_n=64, num_warps=4, num_stages=2, split_kv=2)
    assert [triton_fwd.uses_pdl(a, whole) for a in (80, 86, 89, 90)] == [False, False, False, True]
    assert not triton_fwd.uses_pdl(90, split)


def test_launch_and_offline_compile_name_every_constexpr():
    # The offline compile takes an omitted constexpr as a runtime integer (STORE_LSE once
    # compiled that way while launches passed it as a constexpr: the gate checked another
    # binary). The GPU tier checks that store_lse is never specialised at a launch.
    from flashcore.profile.resources import _raw_jit

    fn = _raw_jit("_attn_fwd_kernel")
    cfg = triton_fwd.Config(block_m=64, block_n=64, num_warps=4, num_stages=3)
    assert set(triton_fwd.kernel_constexprs(cfg, 96, True, False)) == {p.name for p in fn.params if p.is_constexpr}


def _packed(cfg, **changes):
    return triton_fwd.Config(**{**cfg, "pack_gqa": True, **changes})


PACK_CFG = dict(block_m=16, block_n=16, num_warps=4, num_stages=2)


@pytest.mark.parametrize("split_kv", [1, 4])
@pytest.mark.parametrize("heads_q,heads_kv,seq_q,seq_k,causal", [
    (8, 2, 1, 100, False),   # decode: 4 heads' single rows in one 16-row block
    (8, 2, 3, 70, True),     # speculative decode: 12 rows, causal per query index
    (6, 2, 5, 33, True),     # group 3: 15 rows, a head boundary inside the row of queries
    (16, 1, 1, 257, False),  # MQA: all 16 heads in one block
    (4, 2, 7, 5, True),      # Sq > Sk: the first query rows of every head see no key
])
def test_packed_gqa_matches_reference(kernel_device, heads_q, heads_kv, seq_q, seq_k, causal, split_kv):
    case = Case(2, heads_q, seq_q, 32, heads_kv=heads_kv, seq_k=seq_k, causal=causal, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, kernel_device, seed=seq_q * 10 + split_kv)
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    cfg = _packed(PACK_CFG, split_kv=split_kv)
    assert triton_fwd.packs(cfg, seq_q, heads_q // heads_kv)
    triton_fwd.forward(q, k, v, causal, 0.3, cfg, out=out, lse=lse)
    assert not out.isnan().any() and not lse.isnan().any()
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=causal, scale=0.3, lse=lse.cpu()).ok


def test_packed_gqa_reads_each_head_own_query(kernel_device):
    # Swapping two query heads of a group must swap exactly their outputs: rows are not
    # mixed up between the packed heads.
    case = Case(1, 4, 2, 32, heads_kv=1, seq_k=50, dtype=torch.float16)
    q, k, v = make_inputs(case, kernel_device, seed=4)
    cfg = _packed(PACK_CFG)
    out, _ = triton_fwd.forward(q, k, v, False, 0.2, cfg)
    swapped, _ = triton_fwd.forward(q[:, [1, 0, 2, 3]].contiguous(), k, v, False, 0.2, cfg)
    assert torch.equal(swapped, out[:, [1, 0, 2, 3]])
    assert not torch.equal(out[:, 0], out[:, 1])


def test_packed_gqa_transposed_views(kernel_device):
    case = Case(2, 8, 2, 64, heads_kv=2, seq_k=90, causal=True, dtype=torch.float16, layout="bshd")
    q, k, v = make_inputs(case, kernel_device, seed=9)
    assert not q.is_contiguous()
    out, lse = triton_fwd.forward(q, k, v, True, 0.125, _packed(PACK_CFG, split_kv=2))
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, scale=0.125, lse=lse.cpu()).ok


def test_packing_falls_back_where_the_group_does_not_fit():
    # A tuned 16-row config asked to pack 8 heads x 3 rows: the launch runs unpacked.
    cfg = _packed(PACK_CFG)
    assert not triton_fwd.packs(cfg, 3, 8)
    assert not triton_fwd.packs(cfg, 1, 1)  # MHA has nothing to pack
    assert triton_fwd.packs(cfg, 2, 8)


@pytest.mark.parametrize("seq_q,batch_heads,group,pack,splits", [
    (1, 32, 4, True, 16),    # B=1 Hq=32 Hkv=8 decode: 8 packed blocks, 16 splits each
    (1, 32, 1, False, 4),    # the same heads without GQA: 32 blocks
    (1, 256, 4, True, 2),    # B=8: 64 packed blocks
    (4, 32, 4, True, 16),    # 16 packed rows: speculative decode
    (16, 32, 4, False, 4),   # 64 rows do not pack (per-row offsets spilled there)
])
def test_heuristic_packs_short_gqa_queries(seq_q, batch_heads, group, pack, splits):
    cfg = triton_fwd.heuristic_config(90, 128, 2, False, seq_q, 8192, batch_heads, group)
    assert (cfg.pack_gqa, cfg.split_kv) == (pack, splits)
    assert cfg.block_m >= (seq_q * group if pack else 16)


def test_merge_chunk_only_where_measured_and_spill_free():
    # Four partial tiles in flight on sm_90 for decode's 16-row tiles (1.03-1.49x, H100);
    # one on sm_80/sm_89, at block_d 16 and for large tiles, where four spilled offline.
    decode = triton_fwd.Config(block_m=16, block_n=64, num_warps=4, num_stages=3, split_kv=16)
    prefill = triton_fwd.Config(block_m=64, block_n=64, num_warps=8, num_stages=3, split_kv=8)
    assert [triton_fwd.merge_chunk(a, decode, 128) for a in (80, 89, 90)] == [1, 1, 4]
    assert triton_fwd.merge_chunk(90, decode, 16) == 1
    assert triton_fwd.merge_chunk(90, prefill, 128) == 1


def test_short_blocks_split_down_to_four_tiles():
    # 16-row blocks: a full wave of splits for few KV heads; 64-row blocks keep 8 tiles a split.
    assert triton_fwd.split_kv_for(4, 8192, 64, 4) == 32
    assert triton_fwd.split_kv_for(4, 8192, 64) == 16
    assert triton_fwd.split_kv_for(64, 8192, 32, 4) == 2
    assert triton_fwd.split_kv_for(64, 8192, 32, 4, waves=2) == 4


def test_d256_decode_splits_keys_over_two_waves():
    # B=8 Hq/Hkv 16/8 Sq=1 Sk=8k: 64 packed blocks; D=256 takes 4 splits (two waves), D=128 two.
    d256 = triton_fwd.heuristic_config(90, 256, 2, False, 1, 8192, 128, group=2)
    d128 = triton_fwd.heuristic_config(90, 128, 2, False, 1, 8192, 128, group=2)
    assert d256.pack_gqa and d256.block_m == 16 and d256.split_kv == 4
    assert d128.pack_gqa and d128.split_kv == 2
    # Blocks of 64+ rows keep one wave at D=256 (no evidence for more there).
    assert triton_fwd.heuristic_config(90, 256, 2, False, 64, 8192, 8).split_kv == \
        triton_fwd.split_kv_for(8, 8192, 32, 8)
    assert triton_fwd.heuristic_config(90, 64, 2, False, 1, 8192, 32, 8).split_kv == 32
    assert triton_fwd.heuristic_config(90, 128, 2, False, 1, 8192, 8).split_kv == 16  # held by the wave


def test_narrow_rounds_to_nearest_even_where_a_cast_may_truncate(kernel_device):
    """``_narrow`` with UPCAST is what the interpreter's bf16 kernels store: it must agree with
    PyTorch's round-to-nearest-even (Triton 3.6's interpreter truncates a plain cast) on ties,
    both signs, small, huge, inf and NaN values. Not on fp32 subnormals: the interpreter's own
    bf16 conversion garbles those whatever the bits (0x00210000 came out 3.7e-40 for 3.0e-39)."""
    import triton
    import triton.language as tl

    @triton.jit
    def narrow(X, Y, N: tl.constexpr):
        offs = tl.arange(0, N)
        tl.store(Y + offs, triton_fwd._narrow(tl.load(X + offs), tl.bfloat16, True))

    ulp = 2.0 ** -7  # bf16's spacing in [1, 2)
    values = [0.99832, -2.15594, 1 + ulp / 2, 1 + 1.5 * ulp, -(1 + ulp / 2), 1 + 0.49 * ulp, 2e-38, -1e-30,
              3.3e38, 3.4e38, float("inf"), float("-inf"), float("nan"), 0.0, -0.0, 65504.5]
    x = torch.tensor(values + [0.0] * (32 - len(values)), dtype=torch.float32, device=kernel_device)
    y = torch.full(x.shape, 7.0, dtype=torch.bfloat16, device=kernel_device)
    narrow[(1,)](x, y, 32)
    expected = x.to(torch.bfloat16)
    assert torch.equal(y.isnan(), expected.isnan())
    assert torch.equal(y[~y.isnan()].float(), expected[~expected.isnan()].float())
