"""The Gluon sm_90 kernel: offline compile and dispatch facts on CPU, correctness on an H100.

Gluon has no interpreter, so on CPU the kernel is only compiled (for sm_90a, with
Triton's bundled ptxas); the numerical checks need the GPU.
"""

import pytest
import torch

from flashcore import attention
from flashcore.bench.cases import Case
from flashcore.bench.correctness import judge, make_inputs, poisoned_like
from flashcore.kernels import gluon_fwd as gf

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
]
CONFIGS = [gf.Config(128, 128, 8, 2, True), gf.Config(128, 128, 8, 3, True), gf.Config(64, 128, 4, 2),
           gf.Config(128, 64, 8, 3)]


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("config", CONFIGS, ids=lambda c: f"{c.block_m}x{c.block_n}s{c.num_stages}"
                         f"{'-ws' if c.warp_specialize else ''}")
@pytest.mark.parametrize("case", CASES, ids=lambda c: c.label().replace(" ", "-"))
def test_against_reference(case, config):
    q, k, v = make_inputs(case, "cuda", seed=5)
    assert gf.supports(q, k, v, 90) is None
    out, lse = poisoned_like(q), torch.full(q.shape[:3], float("nan"), device=q.device)
    gf.forward(q, k, v, case.causal, case.head_dim ** -0.5, config, out=out, lse=lse)
    verdict = judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=case.causal, lse=lse.cpu())
    assert verdict.ok, f"{case.label()} {config}: {verdict}"


@sm90
@pytest.mark.gpu
@pytest.mark.parametrize("magnitude", [1.0, 10.0])
def test_backend_gluon_through_the_api(magnitude):
    case = Case(2, 16, 2048, 128, causal=True, dtype=torch.bfloat16)
    q, k, v = make_inputs(case, "cuda", seed=9, magnitude=magnitude)
    out, lse = attention(q, k, v, causal=True, return_lse=True, backend="gluon")
    assert judge(out.cpu(), q.cpu(), k.cpu(), v.cpu(), causal=True, lse=lse.cpu()).ok


def test_supports_says_why_not():
    q = torch.randn(1, 2, 8, 64, dtype=torch.float16)
    assert "sm_90" in gf.supports(q, q, q, 80)
    q80 = torch.randn(1, 2, 8, 80, dtype=torch.float16)
    assert "head dim 80" in gf.supports(q80, q80, q80, 90)
    q32 = q.float()
    assert "fp16 or bf16" in gf.supports(q32, q32, q32, 90)
    strided = torch.randn(1, 2, 8, 128, dtype=torch.float16)[..., ::2]
    assert "stride(3)" in gf.supports(strided, strided, strided, 90)


def test_backend_gluon_is_refused_off_sm90_with_a_reason():
    q, k, v = (torch.randn(1, 2, 8, 64, dtype=torch.float16) for _ in range(3))
    with pytest.raises(ValueError, match=r'backend="gluon"'):
        attention(q, k, v, backend="gluon")


def test_constraints_prune_what_the_kernel_cannot_express():
    assert gf.constraints(gf.Config(128, 64, 4, 2), 64)  # 128 rows need 8 warps
    assert gf.constraints(gf.Config(64, 128, 4, 2, True), 128)  # ws needs two 64-row consumers
    assert gf.constraints(gf.Config(128, 128, 8, 4), 128)  # 4 stages of 128x128 K and V: > 227 KB
    assert gf.constraints(gf.heuristic_config(90, 128, 2, False, 8192, 8192, 32), 128) is None


@pytest.mark.parametrize("head_dim,causal", [(128, False), (64, True)])
def test_heuristic_configs_compile_for_sm90_without_spills(head_dim, causal):
    from flashcore.profile.resources import compile_gluon_fwd

    config = gf.heuristic_config(90, head_dim, 2, causal, 8192, 8192, 32)
    report = compile_gluon_fwd(head_dim, "bf16", causal, config)
    assert report.ok, report.problems()
    assert report.shared_bytes >= gf.smem_bytes(config, head_dim)  # the rings are really there


def test_descriptor_layout_is_the_default_for_its_block():
    from triton.experimental.gluon import language as gl

    t = torch.zeros(1, 2, 64, 128, dtype=torch.bfloat16)  # CPU is enough to build a descriptor
    desc = gf._desc(t, 64)
    assert desc.block_shape == [1, 1, 64, 128]
    assert desc.layout == gl.NVMMASharedLayout.get_default_for([1, 1, 64, 128], gl.bfloat16)
    assert gf._desc(t, 64).layout is desc.layout  # cached, not rebuilt per launch
