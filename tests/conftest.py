import os

import torch

HAS_CUDA = torch.cuda.is_available()
# Without a GPU, run the Triton kernels in Triton's CPU interpreter. This must be
# set before triton (and so flashcore) is first imported: triton.jit reads it then.
if not HAS_CUDA:
    os.environ.setdefault("TRITON_INTERPRET", "1")
INTERPRET = os.environ.get("TRITON_INTERPRET", "0") not in ("", "0")

import pytest  # noqa: E402
# The device the kernel tests run on: the GPU when there is one, else the CPU
# under Triton's interpreter, else none (kernel tests skip, the rest still run).
KERNEL_DEVICE = "cuda" if HAS_CUDA else ("cpu" if INTERPRET else None)


def pytest_collection_modifyitems(config, items):
    skip_gpu = pytest.mark.skip(reason="gpu tier: needs a CUDA GPU")
    for item in items:
        if "gpu" in item.keywords and not HAS_CUDA:
            item.add_marker(skip_gpu)


@pytest.fixture
def kernel_device():
    if KERNEL_DEVICE is None:
        pytest.skip("kernel tests need CUDA or TRITON_INTERPRET=1")
    return KERNEL_DEVICE
