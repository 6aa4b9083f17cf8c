"""The Hopper TMA kernel against the fp64 reference (interpreter on CPU, sm_90 on GPU)."""

import pytest
import torch

from flashcore import attention
from flashcore.bench.cases import Case
from flashcore.bench.correctness import judge, make_inputs, poisoned_like
from flashcore.dispatch import arch_of
from flashcore.kernels import hopper_fwd


@pytest.fixture
def hopper_device(kernel_device):
    if kernel_device == "cuda" and arch_of(torch.device("cuda")) < 90:
        pytest.skip("needs sm_90")
    return kernel_device


CASES = [
    Case(2, 4, 100, 64, heads_kv=2, seq_k=77, causal=True, dtype=torch.float16),
    Case(1, 2, 129, 32, causal=False, dtype=torch.bfloat16, layout="bshd"),
    Case(1, 2, 10, 16, seq_k=4, causal=True, dtype=torch.float16),
    Case(1, 2, 65, 128, seq_k=200, causal=True, dtype=torch.bfloat16),
    Case(2, 2, 1, 64, seq_k=33, causal=False, dtype=torch.float16),
]
CONFIGS = [hopper_fwd.Config(64, 32, 4, 2), hopper_fwd.Config(128, 128, 8, 2, True), hopper_fwd.Config(64, 128, 4, 2),
           hopper_fwd.Config(128, 128, 8, 3)]


@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.block_m}x{c.block_n}{'-ws' if c.warp_specialize else ''}")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label().replace(" ", "-"))
def test_against_reference(hopper_device, case, config):
    q, k, v = make_inputs(case, hopper_device, seed=3)
    assert hopper_fwd.supports(q, k, v, 90) is None
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    hopper_fwd.forward(q, k, v, case.causal, case.head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, lse=lse.cpu())
    assert verdict.ok, f"{case.label()} {config}: {verdict}"


def test_backend_hopper_through_api(hopper_device):
    case = Case(1, 4, 70, 64, heads_kv=1, causal=True, dtype=torch.float16)
    q, k, v = make_inputs(case, hopper_device)
    out = attention(q, k, v, causal=True, backend="hopper")
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True).ok


def test_backend_hopper_rejects_unsupported_head_dim(hopper_device):
    q, k, v = make_inputs(Case(1, 2, 8, 80, dtype=torch.float16), hopper_device)
    with pytest.raises(ValueError, match=r'backend="hopper" cannot take these inputs: head dim 80'):
        attention(q, k, v, backend="hopper")


def test_known_bad_combination_is_pruned():
    assert hopper_fwd.constraints(hopper_fwd.Config(128, 64, 8, 3, True), 128) is not None
    assert hopper_fwd.constraints(hopper_fwd.Config(128, 64, 4, 2, True), 128) is not None
    assert hopper_fwd.constraints(hopper_fwd.Config(128, 128, 8, 2, True), 128) is None
