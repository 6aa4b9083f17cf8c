"""The ``flashcore`` console script: ``info``, ``bench``, ``tune``, ``profile``.

Each tool package registers its own sub-command through ``register(subparsers)``;
this module only assembles them and reports the environment.
"""

from __future__ import annotations

import argparse
import importlib
import platform
import sys

TOOLS = ("bench", "tune", "profile")


def backend_status() -> dict[str, str]:
    """Each backend's availability, with the reason when it is not available."""
    import torch

    from .kernels import triton_fwd

    status = {"reference": "available (pure PyTorch, any device)"}
    if torch.cuda.is_available():
        status["triton"] = "available (CUDA)"
    elif triton_fwd.INTERPRET:
        status["triton"] = "available (CPU, Triton interpreter: correctness only, not speed)"
    else:
        status["triton"] = "unavailable: no CUDA GPU; set TRITON_INTERPRET=1 to run it on CPU in the interpreter"
    status["hopper"] = _hopper_status(status["triton"])
    status["gluon"] = _gluon_status()
    status["cute"] = _cute_status()
    return status


def _cute_status() -> str:
    import torch

    from .kernels import cute_fwd

    if not cute_fwd.AVAILABLE:
        return f"unavailable: needs the flashcore[hopper] extra (CuTe DSL): {cute_fwd.MISSING}"
    if torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0):
        return "available (sm_90 CuTe DSL cluster kernel; D 64 or 128; auto: one-wave grids, 385-512 keys, D=64)"
    return "unavailable: needs an sm_90 GPU (clusters, wgmma, TMA; compiles offline for sm_90a)"


def _gluon_status() -> str:
    import torch

    if torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0):
        return "available (sm_90 Gluon kernel, FA3 schedule; D 16-256 in steps of 8 on its D=32/64/128/256 builds, 16-byte-aligned strides)"
    return "unavailable: needs an sm_90 GPU (wgmma and TMA; no interpreter for Gluon)"


def _hopper_status(triton_status: str) -> str:
    import torch

    if torch.cuda.is_available():
        major, minor = torch.cuda.get_device_capability()
        if major * 10 + minor >= 90:
            return "available (sm_90 TMA kernel; power-of-two D <= 128, 16-byte-aligned strides)"
        return f"unavailable: needs sm_90, this GPU is sm_{major}{minor} (the portable kernel serves it)"
    if triton_status.startswith("available"):
        return "available (CPU, Triton interpreter: correctness only)"
    return "unavailable: needs an sm_90 GPU (or TRITON_INTERPRET=1 for correctness on CPU)"


def environment() -> dict:
    import torch
    import triton

    import flashcore

    info = {
        "flashcore": flashcore.__version__,
        "python": platform.python_version(),
        "torch": torch.__version__,
        "triton": triton.__version__,
        "cuda": torch.version.cuda or "none",
        "gpus": [],
    }
    for i in range(torch.cuda.device_count()):
        props = torch.cuda.get_device_properties(i)
        info["gpus"].append({
            "index": i, "name": props.name, "capability": f"sm_{props.major}{props.minor}",
            "sm_count": props.multi_processor_count, "memory_gib": round(props.total_memory / 2**30, 1),
        })
    info["backends"] = backend_status()
    return info


def _info(args) -> int:
    import json

    env = environment()
    if args.json:
        print(json.dumps(env, indent=2))
        return 0
    for key in ("flashcore", "python", "torch", "triton", "cuda"):
        print(f"{key:<10} {env[key]}")
    if not env["gpus"]:
        print("gpu        none")
    for gpu in env["gpus"]:
        print(f"gpu {gpu['index']:<6} {gpu['name']} ({gpu['capability']}, {gpu['sm_count']} SMs, {gpu['memory_gib']} GiB)")
    print("backends:")
    for name, status in env["backends"].items():
        print(f"  {name:<10} {status}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flashcore", description=__doc__.splitlines()[0])
    sub = parser.add_subparsers(dest="command", required=True)
    info = sub.add_parser("info", help="versions, GPUs and which backends are available")
    info.add_argument("--json", action="store_true", help="print JSON instead of text")
    info.set_defaults(func=_info)
    for tool in TOOLS:
        importlib.import_module(f"flashcore.{tool}.cli").register(sub)
    return parser


def main(argv: list[str] | None = None) -> int:
    parser = build_parser()
    args = parser.parse_args(argv)
    try:
        return int(args.func(args) or 0)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
