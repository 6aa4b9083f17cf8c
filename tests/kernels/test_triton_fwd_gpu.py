"""gpu tier: the same correctness rule at real sizes, including the standard grid."""

import pytest
import torch

from flashcore import attention
from flashcore.bench.cases import Case
from flashcore.bench.correctness import judge, make_inputs

pytestmark = pytest.mark.gpu

# The FlashAttention papers' grid (B*S = 16384, H*D = 2048), as the bench issue defines it.
STANDARD = [
    Case(16384 // s, 2048 // d, s, d, causal=c, dtype=torch.bfloat16)
    for d in (64, 128) for s in (512, 1024, 2048, 4096, 8192, 16384) for c in (False, True)
]
EXTRA = [
    Case(1, 8, 512, 64, causal=c, dtype=torch.float16) for c in (False, True)  # seed shape
] + [
    Case(2, 32, 2048, 128, heads_kv=8, causal=True, dtype=torch.bfloat16),  # GQA
    Case(2, 8, 1000, 80, seq_k=3000, causal=True, dtype=torch.float16),
    Case(1, 4, 3000, 256, causal=False, dtype=torch.bfloat16),
    Case(1, 4, 1, 96, seq_k=4097, dtype=torch.bfloat16),  # decode-like
    Case(3, 8, 777, 192, causal=True, dtype=torch.float16, layout="bshd"),
    Case(1, 16, 4096, 32, causal=True, dtype=torch.float16),
]


@pytest.mark.parametrize("case", STANDARD + EXTRA, ids=lambda c: c.label().replace(" ", "-"))
def test_real_sizes(case):
    q, k, v = make_inputs(case, "cuda", seed=1)
    big = case.batch * case.heads_q * case.seq_q * case.sk > 2**31
    # Poison what the allocator will hand out next, so unwritten output shows as NaN.
    torch.full((q.numel() * 2,), float("nan"), device="cuda", dtype=q.dtype)
    out, lse = attention(q, k, v, causal=case.causal, return_lse=True)
    torch.cuda.synchronize()
    verdict = judge(out, q, k, v, causal=case.causal, lse=lse,
                    ref_dtype=torch.float32 if big else torch.float64)
    assert verdict.ok, f"{case.label()}: {verdict}"


def test_over_two_to_the_31_elements():
    # q has 2^31 + 2^20 elements: int32 offsets would wrap.
    case = Case(1, 1, (2**31 + 2**20) // 64, 64, seq_k=256, dtype=torch.float16)
    q, k, v = make_inputs(Case(1, 1, 1024, 64, seq_k=256, dtype=torch.float16), "cuda")
    q = torch.randn(case.batch, case.heads_q, case.seq_q, 64, device="cuda", dtype=torch.float16)
    out = attention(q, k, v)
    tail = slice(case.seq_q - 512, case.seq_q)
    verdict = judge(out[:, :, tail], q[:, :, tail], k, v, causal=False)
    assert verdict.ok, verdict


def test_one_binary_serves_calls_with_and_without_the_lse():
    # store_lse is never specialised (do_not_specialize), so the binary that launches is the
    # one the offline gate compiles; as a constexpr, five builds spilled only at launch.
    from flashcore.kernels import triton_fwd

    q, k, v = make_inputs(Case(2, 8, 1000, 96, causal=True, dtype=torch.bfloat16), "cuda", seed=3)
    cfg = triton_fwd.heuristic_config(90, 96, 2, True, 1000, 1000, 16)
    # Other tests launch the same binaries (test_every_head_dim's D=96 causal bf16 case has
    # this key): under xdist one may have run first in this process, leaving no new entry.
    triton_fwd._launch.compiled.clear()
    binaries = []
    for store_lse in (False, True):
        before = set(triton_fwd._launch.compiled)
        out, lse = triton_fwd.prepare(q, k, v, True, 96 ** -0.5, cfg, store_lse)(q, k, v)
        assert (lse is not None) == store_lse
        assert judge(out, q, k, v, causal=True, lse=lse).ok
        (new,) = set(triton_fwd._launch.compiled) - before  # our key tells 0 from 1; Triton's must not
        binaries.append(triton_fwd._launch.compiled[new][0])
    assert binaries[0] is binaries[1]
