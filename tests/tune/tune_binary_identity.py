"""Compile configs of the portable kernel for sm_90 offline; print each binary's identity.

Run as a script in a process where TRITON_INTERPRET is off (the interpreter's
functions cannot be compiled): ``python tune_binary_identity.py BM,BN,W,S ...``.
"""

import json
import sys

import triton

from flashcore.kernels import triton_fwd
from flashcore.profile.resources import compile_triton_fwd
from flashcore.tune.worker import binary_identity

captured = []
_real = triton.compile


def _capture(*args, **kwargs):
    captured.append(_real(*args, **kwargs))
    return captured[-1]


triton.compile = _capture  # compile_triton_fwd looks it up at call time
idents = []
for arg in sys.argv[1:]:
    config = triton_fwd.Config(*map(int, arg.split(",")))
    report = compile_triton_fwd(90, 64, "fp16", False, config)
    if report.error:
        sys.exit(report.error)
    idents.append(binary_identity(captured[-1]))
print(json.dumps(idents))
