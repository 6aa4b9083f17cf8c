"""Every bad input raises a clear TypeError/ValueError before any kernel runs."""

import pytest
import torch

import flashcore
from flashcore.kernels import triton_fwd


def _qkv(b=1, hq=2, hkv=2, sq=8, sk=8, d=32, dtype=torch.float16):
    g = torch.Generator().manual_seed(0)
    return (torch.randn(b, hq, sq, d, generator=g).to(dtype), torch.randn(b, hkv, sk, d, generator=g).to(dtype),
            torch.randn(b, hkv, sk, d, generator=g).to(dtype))


@pytest.fixture(autouse=True)
def no_kernel(monkeypatch):
    def boom(*a, **k):
        raise AssertionError("a kernel ran for bad input")
    monkeypatch.setattr(triton_fwd, "forward", boom)


def _raises(exc, match, *args, **kwargs):
    with pytest.raises(exc, match=match) as info:
        flashcore.attention(*args, **kwargs)
    assert str(info.value).startswith("flashcore.attention: ")
    return str(info.value)


def test_non_tensor():
    q, k, v = _qkv()
    _raises(TypeError, r"expected k to be a torch.Tensor, got list", q, [1], v)


def test_wrong_ndim():
    q, k, v = _qkv()
    msg = _raises(ValueError, r"expected q to be 4-D .* got 3-D", q[0], k, v)
    assert "transpose(1, 2)" in msg


def test_mismatched_batch():
    q, k, v = _qkv()
    k2, v2 = torch.cat([k, k]), torch.cat([v, v])
    _raises(ValueError, r"k.shape\[0\] \(batch\) == q.shape\[0\] == 1, got 2", q, k2, v2)


def test_mismatched_head_dim():
    q, _, _ = _qkv(d=64)
    _, k, v = _qkv(d=32)
    _raises(ValueError, r"expected k.shape\[3\] \(head dim\) == q.shape\[3\] == 64, got 32", q, k, v)


def test_k_v_shapes_differ():
    q, k, v = _qkv()
    _raises(ValueError, r"k.shape == v.shape", q, k, v[:, :, :4])


def test_heads_not_multiple():
    q, k, v = _qkv(hq=3, hkv=2)
    _raises(ValueError, r"multiple of k.shape\[1\]", q, k, v)


@pytest.mark.parametrize("dtype", [torch.int32, torch.float32])
def test_bad_dtype(dtype):
    q, k, v = _qkv()
    msg = _raises(TypeError, r"dtype", q.to(dtype), k.to(dtype), v.to(dtype), backend="triton")
    assert "cast" in msg
    if dtype == torch.float32:
        assert 'backend="reference"' in msg


def test_mixed_dtypes():
    q, k, v = _qkv()
    _raises(TypeError, r"share one dtype.*q torch.float16, k torch.bfloat16", q, k.bfloat16(), v)


def test_different_devices():
    q, k, v = _qkv()
    k_meta = torch.empty(k.shape, dtype=k.dtype, device="meta")
    _raises(ValueError, r"one device.*meta", q, k_meta, v)


@pytest.mark.parametrize("d", [8, 20, 264, 12])
def test_unsupported_head_dim(d):
    q, k, v = _qkv(d=d)
    _raises(ValueError, rf"multiple of 8 from 16 to 256, got {d}", q, k, v, backend="triton")


@pytest.mark.parametrize("scale", [0.0, -1.0, float("nan"), float("inf")])
def test_bad_scale(scale):
    q, k, v = _qkv()
    _raises(ValueError, r"scale to be finite and > 0", q, k, v, scale=scale)


def test_scale_type():
    q, k, v = _qkv()
    _raises(TypeError, r"scale to be a float", q, k, v, scale="0.1")


def test_unknown_backend():
    q, k, v = _qkv()
    _raises(ValueError, r"expected backend in .*got 'cuda'", q, k, v, backend="cuda")


@pytest.mark.parametrize("backend", ["gluon", "cute"])
@pytest.mark.parametrize("interpret", [False, True])
def test_kernels_without_an_interpreter_need_cuda_tensors(monkeypatch, backend, interpret):
    """backend="gluon"/"cute" are valid names; on CPU tensors they are refused before any
    launch, and the message does not send the caller to Triton's interpreter, which cannot run
    them."""
    import flashcore.api as api
    monkeypatch.setattr(api, "INTERPRET", interpret)
    q, k, v = _qkv(d=64)
    msg = _raises(ValueError, rf'backend="{backend}" needs CUDA tensors, got tensors on cpu', q, k, v, backend=backend)
    assert "no CPU interpreter" in msg and "TRITON_INTERPRET" not in msg


def test_flags_are_bools():
    q, k, v = _qkv()
    _raises(TypeError, r"causal to be a bool", q, k, v, causal=1)


def test_triton_on_cpu_without_interpreter(monkeypatch):
    import flashcore.api as api
    monkeypatch.setattr(api, "INTERPRET", False)
    q, k, v = _qkv()
    _raises(ValueError, r'backend="triton" needs CUDA tensors.*TRITON_INTERPRET=1', q, k, v, backend="triton")
    _raises(ValueError, r'backend="hopper" needs CUDA tensors.*TRITON_INTERPRET=1', q, k, v, backend="hopper")


def test_grad_needs_reference_backend(monkeypatch):
    import flashcore.api as api
    monkeypatch.setattr(api, "INTERPRET", True)
    q, k, v = _qkv()
    q.requires_grad_(True)
    with pytest.raises(NotImplementedError, match=r"torch.no_grad\(\).*backend=\"reference\""):
        flashcore.attention(q, k, v, backend="triton")
