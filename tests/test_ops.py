"""The custom op: fake implementation, opcheck, and torch.compile with no graph break."""

import torch

import flashcore
from flashcore.bench.correctness import Case, make_inputs


def test_opcheck(kernel_device):
    q, k, v = make_inputs(Case(1, 4, 20, 32, heads_kv=2, seq_k=33, dtype=torch.float16), kernel_device)
    torch.library.opcheck(torch.ops.flashcore.attention_fwd.default, (q, k, v, True, 0.25),
                          test_utils=("test_schema", "test_faketensor"))


def test_fake_matches_real_layout(kernel_device):
    q, k, v = make_inputs(Case(1, 2, 9, 32, dtype=torch.bfloat16, layout="bshd"), kernel_device)
    real_out, real_lse = torch.ops.flashcore.attention_fwd(q, k, v, False, 0.2)
    from torch._subclasses.fake_tensor import FakeTensorMode
    with FakeTensorMode() as mode:
        fq, fk, fv = (mode.from_tensor(t) for t in (q, k, v))
        fake_out, fake_lse = torch.ops.flashcore.attention_fwd(fq, fk, fv, False, 0.2)
    assert fake_out.stride() == real_out.stride() and fake_out.dtype == real_out.dtype
    assert fake_lse.shape == real_lse.shape and fake_lse.dtype == real_lse.dtype


def test_torch_compile_fullgraph(kernel_device):
    q, k, v = make_inputs(Case(2, 4, 24, 32, heads_kv=2, dtype=torch.float16), kernel_device)

    def block(q, k, v):
        return flashcore.attention(q * 1.0, k, v, causal=True).sum(-1)

    torch._dynamo.reset()
    compiled = torch.compile(block, fullgraph=True, backend="aot_eager")
    torch.testing.assert_close(compiled(q, k, v), block(q, k, v))
