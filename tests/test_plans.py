"""The eager plan cache (flashcore.plans): a repeated signature skips validation and
dispatch, and must still give exactly what the full path gives, never a stale answer,
and never swallow an error the full path raises."""

import gc

import pytest
import torch

import flashcore
from flashcore import dispatch, ops, plans
from flashcore.bench.correctness import Case, judge, make_inputs
from flashcore.kernels import launch, triton_fwd
from flashcore.kernels.launch import without_pdl


def _inputs(device, b=1, hq=2, hkv=2, sq=16, sk=16, d=32, dtype=torch.float16, seed=0, layout="bhsd"):
    return make_inputs(Case(b, hq, sq, d, heads_kv=hkv, seq_k=sk, dtype=dtype, layout=layout), device, seed=seed)


@pytest.fixture(autouse=True)
def _fresh_plans():
    plans.clear()
    yield
    plans.clear()


def _count_prepares(monkeypatch):
    calls = []
    real = triton_fwd.prepare
    monkeypatch.setattr(triton_fwd, "prepare", lambda *a, **kw: calls.append(1) or real(*a, **kw))
    return calls


def test_repeat_call_reuses_the_plan_and_reads_the_new_tensors(kernel_device, monkeypatch):
    prepares = _count_prepares(monkeypatch)
    for seed in range(3):
        q, k, v = _inputs(kernel_device, sq=24, sk=40, seed=seed)
        out = flashcore.attention(q, k, v, causal=True, backend="triton")
        assert judge(out, q, k, v, causal=True).ok
    assert len(prepares) == 1


@pytest.mark.parametrize("change", ["shape", "causal", "scale", "return_lse", "dtype", "gqa", "layout", "tuned",
                                    "pdl"])
def test_any_change_of_signature_takes_a_new_plan(kernel_device, monkeypatch, change):
    prepares = _count_prepares(monkeypatch)
    q, k, v = _inputs(kernel_device)
    flashcore.attention(q, k, v, backend="triton")
    kwargs = {}
    if change == "shape":
        q, k, v = _inputs(kernel_device, sq=7, seed=1)
    elif change == "causal":
        kwargs["causal"] = True
    elif change == "scale":
        kwargs["scale"] = 0.3
    elif change == "return_lse":
        kwargs["return_lse"] = True
    elif change == "dtype":
        q, k, v = _inputs(kernel_device, dtype=torch.bfloat16, seed=1)
    elif change == "gqa":
        q, k, v = _inputs(kernel_device, hq=4, hkv=2, seed=1)
    elif change == "layout":
        q, k, v = _inputs(kernel_device, layout="bshd", seed=1)
    switch = {"tuned": dispatch.heuristics_only, "pdl": without_pdl}.get(change, _nothing)
    with switch():
        result = flashcore.attention(q, k, v, backend="triton", **kwargs)
    out, lse = result if kwargs.get("return_lse") else (result, None)
    assert len(prepares) == 2
    verdict = judge(out, q, k, v, causal=kwargs.get("causal", False), scale=kwargs.get("scale"), lse=lse)
    assert verdict.ok, verdict


class _nothing:
    def __enter__(self):
        return None

    def __exit__(self, *exc):
        return False


@pytest.mark.parametrize("bad", [dict(causal=1), dict(return_lse=0), dict(scale=True), dict(backend=["triton"])])
def test_a_plan_never_swallows_a_type_error(kernel_device, bad):
    q, k, v = _inputs(kernel_device)
    good = dict(causal=True, return_lse=False, scale=1.0, backend="triton")
    flashcore.attention(q, k, v, **good)
    flashcore.attention(q, k, v, **good)  # now planned
    with pytest.raises((TypeError, ValueError)):
        flashcore.attention(q, k, v, **{**good, **bad})


def test_grad_inputs_still_raise_after_a_plan(kernel_device):
    q, k, v = _inputs(kernel_device)
    flashcore.attention(q, k, v, backend="triton")
    with pytest.raises(NotImplementedError, match="backward"):
        flashcore.attention(q.requires_grad_(), k, v, backend="triton")


def test_unaligned_inputs_take_no_plan(kernel_device):
    q, k, v = _inputs(kernel_device, d=32)
    flat = torch.empty(q.numel() + 1, dtype=q.dtype, device=q.device)
    q_off = flat[1:].view(q.shape).copy_(q)  # 2-byte offset: not 16-byte aligned
    assert plans.key(q_off, k, v, False, None, False, "triton") is None
    out = flashcore.attention(q_off, k, v, backend="triton")
    assert judge(out, q_off, k, v, causal=False).ok


def test_no_key_for_calls_that_need_the_full_path(kernel_device):
    q, k, v = _inputs(kernel_device)
    assert plans.key(q, k, v, False, None, False, "triton") is not None
    assert plans.key(q.tolist(), k, v, False, None, False, "triton") is None
    assert plans.key(torch.nn.Parameter(q), k, v, False, None, False, "triton") is None
    assert plans.key(q, k, v, 1, None, False, "triton") is None
    assert plans.key(q, k, v, False, 2, False, "triton") is None
    assert plans.key(q, k, v, False, None, False, ("triton",)) is None


def test_without_return_lse_the_kernel_skips_the_lse(kernel_device):
    q, k, v = _inputs(kernel_device, sq=33, sk=17)
    cfg = triton_fwd.heuristic_config(80, 32, 2, True, 33, 17, 2)
    run = triton_fwd.prepare(q, k, v, True, 0.2, cfg, store_lse=False)
    placeholder = launch.lse_scratch(1, q.device)  # what LSE points at: must stay untouched
    placeholder.fill_(7.0)
    out, lse = run(q, k, v)
    assert lse is None and bool((placeholder == 7.0).all())
    full, full_lse = triton_fwd.forward(q, k, v, True, 0.2, cfg)
    assert torch.equal(out, full) and full_lse.shape == q.shape[:3]


def test_the_plan_table_is_bounded(kernel_device, monkeypatch):
    monkeypatch.setattr(plans, "MAX_PLANS", 2)
    for sq in (3, 5, 9):
        q, k, v = _inputs(kernel_device, sq=sq, sk=8)
        flashcore.attention(q, k, v, backend="triton")
    assert len(plans._PLANS) <= 2


@pytest.mark.gpu
def test_planned_launches_match_the_full_path_on_gpu():
    """On CUDA the plan hands pointers straight to the compiled launcher: same bits as
    the full path, on fresh inputs every call, including split-KV (across CTAs and, Gluon,
    between warpgroups) and causal GQA."""
    shapes = [dict(b=1, hq=8, hkv=8, sq=512, sk=512, d=64), dict(b=1, hq=8, hkv=2, sq=1, sk=4096, d=128),
              dict(b=2, hq=4, hkv=4, sq=1000, sk=257, d=64),
              dict(b=1, hq=4, hkv=2, sq=2048, sk=2048, d=128)]  # causal: keys split between warpgroups
    for shape in shapes:
        for causal in (False, True):
            for seed in range(3):
                q, k, v = _inputs("cuda", dtype=torch.bfloat16, seed=seed, **shape)
                out, lse = flashcore.attention(q, k, v, causal=causal, return_lse=True)
                plain = flashcore.attention(q, k, v, causal=causal)
                full, full_lse = ops.fused_forward(q, k, v, causal, shape["d"] ** -0.5)  # no plan
                assert judge(out, q, k, v, causal=causal, lse=lse).ok
                assert torch.equal(out, full) and torch.equal(lse, full_lse) and torch.equal(plain, out)


def _chain(q, k, v, causal, links):
    """``links`` calls, each one's output the next one's queries; the last output."""
    for _ in range(links):
        q = flashcore.attention(q, k, v, causal=causal)
    return q


_KERNEL_PATHS = [
    dict(b=1, hq=8, hkv=8, sq=512, sk=512, d=64),  # seed: Gluon stage 1 on half the SMs
    dict(b=1, hq=4, hkv=2, sq=2048, sk=2048, d=128),  # causal: keys split between warpgroups
    dict(b=1, hq=8, hkv=8, sq=256, sk=4096, d=64),  # Gluon stage 1, keys split across 4 CTAs
    dict(b=1, hq=8, hkv=8, sq=1, sk=4096, d=64),  # decode: the portable kernel, keys split across CTAs
    dict(b=2, hq=16, hkv=16, sq=2048, sk=2048, d=128),  # more than a wave; causal: persistent
]


@pytest.mark.gpu
@pytest.mark.parametrize("shape", _KERNEL_PATHS)
@pytest.mark.parametrize("causal", [False, True])
def test_back_to_back_programmatic_launches_wait_for_their_inputs(shape, causal):
    """Under PDL a launch may start while the previous one still runs, and must wait for
    it before touching memory. Each call here reads the previous call's output as its
    queries, and the allocator hands it buffers that the call before still read (a
    write-after-read race), eagerly and in one CUDA graph. The chains must equal, bit for
    bit, the same chains launched without PDL, whose first link matches the reference."""
    q, k, v = _inputs("cuda", dtype=torch.bfloat16, seed=5, **shape)
    with without_pdl():
        serial = _chain(q, k, v, causal, 12)
        first = flashcore.attention(q, k, v, causal=causal)
    assert judge(first, q, k, v, causal=causal).ok
    assert torch.equal(_chain(q, k, v, causal, 12), serial)
    _chain(q, k, v, causal, 1)  # plans and binaries exist before the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        captured = _chain(q, k, v, causal, 12)
    for _ in range(3):
        captured.fill_(float("nan"))
        graph.replay()
        torch.cuda.synchronize()
        assert torch.equal(captured, serial)


@pytest.mark.gpu
@pytest.mark.parametrize("shape", _KERNEL_PATHS)
@pytest.mark.parametrize("causal", [False, True])
def test_a_captured_graph_outlives_its_plan(shape, causal):
    """A CUDA graph must own, or share with its caller, every buffer its launches write:
    dropping the plan (``plans.clear``, eviction at MAX_PLANS) must not free one under a
    graph that can still replay. A freed block goes to the next allocation of its size,
    so sentinels of the size of the LSE (the buffer a call without ``return_lse`` does
    not ask for) take any such block; the replay must leave them alone and still give
    the right output."""
    q, k, v = _inputs("cuda", dtype=torch.bfloat16, seed=6, **shape)
    flashcore.attention(q, k, v, causal=causal)  # the plan and binary exist before the capture
    graph = torch.cuda.CUDAGraph()
    with torch.cuda.graph(graph):
        out = flashcore.attention(q, k, v, causal=causal)
    plans.clear()
    gc.collect()
    sentinels = [torch.full(q.shape[:3], 7.0, device="cuda") for _ in range(64)]
    out.fill_(float("nan"))
    graph.replay()
    torch.cuda.synchronize()
    assert all(bool((s == 7.0).all()) for s in sentinels), "the graph wrote into memory its plan had freed"
    assert judge(out, q, k, v, causal=causal).ok
