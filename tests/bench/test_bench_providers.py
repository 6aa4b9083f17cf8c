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

from bench_fakes import TINY, TINY_CAUSAL

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
    monkeypatch.setattr(providers.api, "attention", lambda *a, **kw: seen.append(dispatch._TUNED.on))
    tuned, heuristic = get_providers(["flashcore", "flashcore-heuristic"])
    assert heuristic.name == "flashcore-heuristic"
    q, k, v = (torch.randn(1, 2, 16, 16, dtype=torch.float16) for _ in range(3))
    for provider in (tuned, heuristic):
        provider.prepare(TINY, q, k, v)
        provider.run()
    assert seen == [dispatch._TUNED.on, False]


# ----------------------------------------------------------------------------------
# One fixed config: flashcore-<family>[field=value,...]
# ----------------------------------------------------------------------------------
TRITON_SPEC = "flashcore-triton[block_m=16,block_n=16,num_warps=4,num_stages=1]"


def test_provider_list_keeps_config_specs_whole():
    text = f"flashcore, {TRITON_SPEC},sdpa"
    assert parse_provider_list(text) == ["flashcore", TRITON_SPEC, "sdpa"]
    assert [p.name for p in get_providers(parse_provider_list(text))] == ["flashcore", TRITON_SPEC, "sdpa"]


def test_config_spec_fields_and_defaults():
    module, config = providers.parse_config_spec(
        "flashcore-gluon[block_m=128, block_n=64, num_warps=8, num_stages=3, warp_specialize=true, persistent=1]")
    assert module is dispatch.KERNELS["gluon"]
    assert config == module.Config(128, 64, 8, 3, warp_specialize=True, pingpong=False, persistent=True)
    _, config = providers.parse_config_spec(TRITON_SPEC)
    assert config.split_kv == 1  # left out: the Config's default


@pytest.mark.parametrize("spec, message", [
    ("flashcore-cuda[block_m=64]", "unknown kernel family 'cuda'; expected one of triton, hopper, gluon"),
    ("flashcore-triton[block_m=64,tile=3]", "has no field 'tile'; its fields are block_m, block_n"),
    ("flashcore-triton[block_m=big,block_n=16,num_warps=4,num_stages=1]", "block_m='big', expected an integer"),
    ("flashcore-gluon[block_m=64,block_n=64,num_warps=4,num_stages=2,persistent=maybe]",
     "persistent='maybe', expected true/false or 1/0"),
    ("flashcore-triton[block_m=64]", "give every field without a default .block_m, block_n, num_warps, num_stages"),
    ("flashcore-triton[block_m=64", "expected flashcore-<family>.field=value"),
])
def test_bad_config_spec_says_what_to_write(spec, message):
    with pytest.raises(ValueError, match=message):
        parse_provider_list(f"sdpa,{spec}")


def test_config_provider_passes_its_config(monkeypatch):
    """The config in the name is the one launched (not dispatch's choice)."""
    provider = get_providers([TRITON_SPEC])[0]
    seen = []
    fake = types.SimpleNamespace(forward=lambda q, k, v, causal, scale, config: seen.append((causal, scale, config))
                                 or (q, None))
    monkeypatch.setattr(provider, "module", fake)
    q = torch.randn(1, 2, 16, 16, dtype=torch.float16)
    provider.prepare(TINY_CAUSAL, q, q, q)
    provider.run()
    assert seen == [(True, 16 ** -0.5, provider.config)]


def test_config_provider_reports_the_family_constraints():
    spec = "flashcore-gluon[block_m=64,block_n=128,num_warps=4,num_stages=2,pingpong=1]"
    provider = get_providers([spec])[0]
    if provider.supports(TINY).startswith("unsupported: needs CUDA"):
        pytest.skip("no CUDA and no interpreter")
    assert provider.supports(TINY) == "unsupported: pingpong orders the GEMMs of consumer warpgroups: it needs " \
                                      "warp_specialize"


@pytest.mark.skipif(not (torch.cuda.is_available() or providers.INTERPRET), reason="needs CUDA or the interpreter")
@pytest.mark.parametrize("case", [TINY, TINY_CAUSAL, Case(1, 4, 9, 32, heads_kv=2, seq_k=20, causal=True,
                                                           dtype=torch.float16)],
                         ids=["full", "causal", "gqa-sq-ne-sk"])
def test_config_provider_is_checked_like_any_other(case):
    provider = get_providers([TRITON_SPEC])[0]
    assert provider.supports(case) is None
    device = "cuda" if torch.cuda.is_available() else "cpu"
    with provider.session():
        assert check_provider(provider, case, device, sets=2).correct
