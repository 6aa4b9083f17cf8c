import sys
import types

import pytest
import torch

from flashcore import dispatch
from flashcore.bench import providers
from flashcore.bench.cases import Case
from flashcore.bench.correctness import check_provider
from flashcore.bench.providers import (
    FlashAttnProvider, SdpaProvider, Unsupported, get_providers, known_providers, parse_provider_list,
)
from flashcore.reference import attention_reference

from bench_fakes import TINY

ISSUE_NAMES = ["flashcore", "flashcore-triton", "flashcore-reference", "sdpa", "sdpa-flash", "sdpa-cudnn",
               "sdpa-efficient", "sdpa-math", "fa4", "fa2"]


def test_registry_has_every_provider_of_the_issue():
    known = known_providers()
    assert [n for n in known if n in ISSUE_NAMES] == ISSUE_NAMES
    assert [p.name for p in get_providers()] == known
    assert [p.name for p in get_providers(["sdpa", "flashcore"])] == ["sdpa", "flashcore"]


def test_one_provider_per_fused_kernel_family():
    from flashcore import dispatch

    assert {f"flashcore-{b}" for b in dispatch.KERNELS} <= set(known_providers())


def test_kernel_family_limits_become_unsupported(monkeypatch):
    from flashcore import dispatch

    fake = type("Family", (), {"supports": staticmethod(lambda q, k, v, arch: "needs sm_90 (TMA), got sm_80")})
    monkeypatch.setitem(dispatch.KERNELS, "fake", fake)
    provider = providers.FlashcoreProvider("fake")
    q = torch.randn(1, 2, 8, 16, dtype=torch.float16)
    with pytest.raises(Unsupported, match="unsupported: needs sm_90"):
        provider.prepare(TINY, q, q, q)


def test_unknown_provider_names_the_known_ones():
    with pytest.raises(ValueError, match="unknown provider.*'fa5'.*known: flashcore"):
        get_providers(["fa5"])
    with pytest.raises(ValueError, match="'fa5'.*expected a comma list of: flashcore, flashcore-triton"):
        parse_provider_list("sdpa,fa5")
    with pytest.raises(ValueError, match="expects a comma list.*got . , ."):
        parse_provider_list(" , ")
    assert parse_provider_list("sdpa, fa4,sdpa") == ["sdpa", "fa4"]


def _check(provider, case):
    with provider.session():
        return check_provider(provider, case, "cpu", sets=2)


@pytest.mark.parametrize("name", ["sdpa", "sdpa-math"])
@pytest.mark.parametrize("case", [TINY, Case(2, 4, 12, 16, heads_kv=2, causal=True, dtype=torch.float16)],
                         ids=["mha", "gqa-causal"])
def test_sdpa_on_cpu_is_correct(name, case):
    provider = get_providers([name])[0]
    assert provider.supports(case) is None
    assert _check(provider, case).correct


@pytest.mark.parametrize("sq, sk", [(9, 20), (20, 9)])
def test_causal_with_sq_ne_sk(sq, sk):
    case = Case(1, 2, sq, 16, seq_k=sk, causal=True, dtype=torch.float16)
    for name in ("sdpa", "sdpa-flash", "sdpa-cudnn", "sdpa-efficient"):
        reason = get_providers([name])[0].supports(case)
        assert reason and "top-left aligned" in reason or "CUDA" in reason
    math = get_providers(["sdpa-math"])[0]
    assert math.supports(case) is None  # explicit bottom-right mask
    assert _check(math, case).correct


def test_sdpa_kernels_need_cuda_here():
    if torch.cuda.is_available():
        pytest.skip("CPU-only check")
    for name in ("sdpa-flash", "sdpa-cudnn", "sdpa-efficient"):
        assert get_providers([name])[0].supports(TINY) == "unsupported: needs a CUDA GPU"


def test_no_available_kernel_becomes_unsupported_with_the_reason():
    # On CPU no efficient-attention kernel exists: the trial call in prepare says so.
    if torch.cuda.is_available():
        pytest.skip("efficient attention may run here")
    provider = SdpaProvider("efficient")
    q = torch.randn(1, 2, 8, 16)
    with provider.session(), pytest.raises(Unsupported, match="unsupported: "):
        provider.prepare(TINY, q, q, q)


def test_unfused_providers_limit_shape_size():
    big = Case(16, 32, 1024, 64)
    for name in ("flashcore-reference", "sdpa-math"):
        assert "small shapes only" in get_providers([name])[0].supports(big)


def test_fused_flashcore_rejects_odd_head_dims():
    reason = get_providers(["flashcore-triton"])[0].supports(Case(1, 1, 8, 20))
    if torch.cuda.is_available() or providers.INTERPRET:
        assert "head dim 20" in reason
    else:
        assert "TRITON_INTERPRET" in reason


def test_fa4_missing_is_reported(monkeypatch):
    monkeypatch.setattr(providers, "_import", lambda module, attr: None)
    assert get_providers(["fa4"])[0].supports(TINY) == "missing: flash_attn.cute not importable"
    assert get_providers(["fa2"])[0].supports(TINY) == "missing: flash_attn not importable"


def _fake_flash_attn(monkeypatch, returns_tuple=True, fail=None):
    """A stand-in flash_attn.cute module: (B, S, H, D) in and out, like the real one."""
    calls = []

    def flash_attn_func(q, k, v, softmax_scale=None, causal=False):
        calls.append((q.shape, causal))
        if fail:
            raise fail
        assert q.is_contiguous()
        out = attention_reference(q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2), causal=causal)
        out = out.transpose(1, 2).contiguous()
        return (out, None) if returns_tuple else out

    module = types.ModuleType("flash_attn.cute")
    module.flash_attn_func = flash_attn_func
    monkeypatch.setitem(sys.modules, "flash_attn.cute", module)
    monkeypatch.setattr(providers, "_needs_cuda", lambda: None)
    return calls


@pytest.mark.parametrize("returns_tuple", [True, False])
def test_flash_attn_adapter_converts_layout(monkeypatch, returns_tuple):
    calls = _fake_flash_attn(monkeypatch, returns_tuple)
    case = Case(2, 4, 24, 16, heads_kv=2, seq_k=40, causal=True, dtype=torch.float16)
    provider = FlashAttnProvider("fa4", "flash_attn.cute")
    assert provider.supports(case) is None
    assert _check(provider, case).correct
    assert calls[0] == (torch.Size([2, 24, 4, 16]), True)  # (B, S, H, D)


def test_flash_attn_assertion_means_unsupported(monkeypatch):
    _fake_flash_attn(monkeypatch, fail=AssertionError("head_dim must be divisible by 8"))
    provider = FlashAttnProvider("fa4", "flash_attn.cute")
    q = torch.randn(1, 2, 8, 16, dtype=torch.float16)
    with pytest.raises(Unsupported, match="unsupported: AssertionError: head_dim"):
        provider.prepare(TINY, q, q, q)


def test_bound_copies_are_independent():
    provider = get_providers(["flashcore-reference"])[0]
    a = [torch.randn(1, 2, 16, 16, dtype=torch.float16) for _ in range(3)]
    b = [torch.randn(1, 2, 16, 16, dtype=torch.float16) for _ in range(3)]
    run_a, run_b = provider.bound(TINY, *a), provider.bound(TINY, *b)
    assert torch.equal(run_a(), attention_reference(*a))
    assert torch.equal(run_b(), attention_reference(*b))


def test_auto_says_what_dispatch_chose():
    provider = get_providers(["flashcore"])[0]
    q, k, v = (torch.randn(1, 2, 16, 16, dtype=torch.float16) for _ in range(3))
    provider.prepare(TINY, q, k, v)
    # CPU tensors: the interpreter runs the Triton kernel, else auto falls back to the reference.
    if providers.INTERPRET:
        assert provider.note.startswith("auto -> triton (heuristic: block_m=16 block_n=")
    else:
        assert provider.note == "auto -> reference"


def test_heuristic_provider_turns_the_table_off(monkeypatch):
    seen = []
    monkeypatch.setattr(providers.api, "attention", lambda *a, **kw: seen.append(dispatch._USE_TUNED[0]))
    tuned, heuristic = get_providers(["flashcore", "flashcore-heuristic"])
    assert heuristic.name == "flashcore-heuristic"
    q, k, v = (torch.randn(1, 2, 16, 16, dtype=torch.float16) for _ in range(3))
    for provider in (tuned, heuristic):
        provider.prepare(TINY, q, k, v)
        provider.run()
    assert seen == [dispatch._USE_TUNED[0], False]
