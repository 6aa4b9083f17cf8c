"""The program ncu launches: warm-up calls then exactly one more, and its JSON report."""

import argparse
import json
from types import SimpleNamespace

import pytest
import torch

from flashcore import dispatch
from flashcore.bench import providers
from flashcore.profile import target


class CountingProvider:
    def __init__(self, name, unsupported=None):
        self.name, self.unsupported, self.runs = name, unsupported, 0

    def supports(self, case):
        return self.unsupported

    def prepare(self, case, q, k, v):
        self.case, self.q = case, q

    def run(self):
        self.runs += 1
        return self.q


@pytest.fixture
def provider(monkeypatch):
    made = {}

    def get_providers(names):
        made.update({n: CountingProvider(n, "needs sm_90" if n == "fa4" else None) for n in names})
        return [made[n] for n in names]

    # bench's registry is being written alongside; the target only needs this function.
    monkeypatch.setattr(providers, "get_providers", get_providers, raising=False)
    return made


def test_runs_warmup_then_one_profiled_call(provider, tmp_path):
    report = tmp_path / "t.json"
    rc = target.main(["--provider", "sdpa-flash", "--shape", "1,2,32,16", "--warmup", "4",
                      "--report", str(report), "--device", "cpu"])
    assert rc == 0
    assert provider["sdpa-flash"].runs == 5
    assert provider["sdpa-flash"].case.dtype == torch.bfloat16
    data = json.loads(report.read_text())
    assert data["status"] == "ok" and data["warmup"] == 4 and "flashcore" not in data


def test_flashcore_report_names_the_dispatched_config(provider, tmp_path):
    report = tmp_path / "t.json"
    assert target.main(["--provider", "flashcore", "--shape", "1,2,64,128,1,256", "--causal", "--dtype", "fp16",
                        "--warmup", "1", "--report", str(report), "--device", "cpu"]) == 0
    case = provider["flashcore"].case
    assert (case.hkv, case.sk, case.causal, case.dtype) == (1, 256, True, torch.float16)
    info = json.loads(report.read_text())["flashcore"]
    assert info["family"] == "triton" and info["arch"] == 80  # CPU: the portable kernel, counted as sm_80
    assert info["config"] == dispatch.kernel_config("triton", 80, torch.float16, 128, True, 64, 256, 2).as_dict()


def test_a_fixed_config_reports_its_own_config_not_dispatchs():
    fixed = providers.ConfigProvider("flashcore-gluon[block_m=64,block_n=32,num_warps=4,num_stages=2]")
    q = torch.zeros(1, 2, 64, 64)
    case = SimpleNamespace(causal=True)
    info = target.flashcore_compile_report(fixed, case, q, q, q, "cpu")
    assert info["family"] == "gluon"
    assert info["config"] == dispatch.KERNELS["gluon"].Config(64, 32, 4, 2).as_dict()


def test_unsupported_provider_exits_3_with_its_reason(provider, tmp_path):
    report = tmp_path / "t.json"
    rc = target.main(["--provider", "fa4", "--shape", "1,2,32,16", "--report", str(report), "--device", "cpu"])
    assert rc == target.UNSUPPORTED_EXIT
    assert json.loads(report.read_text()) == {"status": "unsupported", "provider": "fa4", "reason": "needs sm_90"}
    assert provider["fa4"].runs == 0


def test_compile_info_reads_the_jit_device_cache():
    meta = SimpleNamespace(shared=131072, num_warps=8, num_stages=3, target=SimpleNamespace(arch=90))
    compiled = SimpleNamespace(name="_attn_fwd_kernel", n_regs=246, n_spills=0, metadata=meta)
    kernel = SimpleNamespace(device_caches={0: ({"key": compiled}, None, None, None, None)})
    assert target.triton_compile_info(kernel) == [{
        "name": "_attn_fwd_kernel", "registers": 246, "spill_bytes": 0, "shared_bytes": 131072,
        "num_warps": 8, "num_stages": 3, "arch": 90,
    }]
    assert target.triton_compile_info(object()) == []  # the interpreter's kernel has no cache


@pytest.mark.parametrize("text", ["4,16,4096", "4,16,4096,128,1,2,3", "4,x,1,1", "0,1,1,16", "1,6,8,64,4"])
def test_bad_shapes_are_rejected(text):
    with pytest.raises(argparse.ArgumentTypeError, match="--shape"):
        target.shape_arg(text)


def test_shape_with_kv_heads_and_key_length():
    case = target.make_case(target.shape_arg("2, 32, 1, 128, 8, 8192"), True, "fp16")
    assert (case.batch, case.heads_q, case.seq_q, case.head_dim, case.hkv, case.sk) == (2, 32, 1, 128, 8, 8192)
    assert case.causal and case.dtype == torch.float16
