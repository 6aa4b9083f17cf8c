"""flashcore: fused tensor-core FlashAttention kernels under a PyTorch API."""

from .api import attention
from .reference import attention_reference

__version__ = "0.1.0"
__all__ = ["attention", "attention_reference", "__version__"]
