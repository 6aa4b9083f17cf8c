"""The program ncu launches: one provider, one shape, warm-up calls, then one more.

    python -m flashcore.profile.target --provider flashcore --shape 4,16,4096,128 \\
        --dtype bf16 --warmup 5 --report out.json

The warm-up calls compile and settle caches; ncu skips their kernels with
``--launch-skip`` and profiles the last call. ``--report`` receives JSON: the
status (``ok``, or ``unsupported`` with the provider's reason) and, for flashcore's
fused backends, which kernel family dispatch picked, its config, and the compile
report of what actually ran (registers, local/spill bytes and shared memory read
from Triton's compiled object).
"""

from __future__ import annotations

import argparse
import json
import sys

DTYPES = ("bf16", "fp16")
UNSUPPORTED_EXIT = 3


def shape_arg(text: str) -> str:
    """Validate ``--shape`` with bench's parser (one format for every tool); keep the text."""
    from ..bench.cases import parse_shape

    try:
        parse_shape(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None
    return text


def make_case(shape: str, causal: bool, dtype: str):
    from ..bench.cases import DTYPES as TORCH_DTYPES
    from ..bench.cases import parse_shape

    return parse_shape(shape, TORCH_DTYPES[dtype], causal)


def add_case_arguments(parser, shape_required: bool = True) -> None:
    parser.add_argument("--shape", type=shape_arg, required=shape_required, metavar="B,Hq,S,D[,Hkv[,Sk]]",
                        help="batch, query heads, query length, head dim; optional KV heads and key length")
    parser.add_argument("--causal", action="store_true", help="causal mask (bottom-right aligned)")
    parser.add_argument("--dtype", choices=DTYPES, default="bf16")


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m flashcore.profile.target", description=__doc__.splitlines()[0])
    parser.add_argument("--provider", required=True, help="one provider name, as in `flashcore bench`")
    add_case_arguments(parser)
    parser.add_argument("--warmup", type=int, default=5, help="calls before the profiled one (default 5)")
    parser.add_argument("--report", help="write the JSON report here")
    parser.add_argument("--device", default="cuda", help=argparse.SUPPRESS)  # tests use cpu
    return parser


# ----------------------------------------------------------------------------------
# Compile report of flashcore's kernel
# ----------------------------------------------------------------------------------
def triton_compile_info(kernel) -> list[dict]:
    """Registers, local (spill) bytes and shared memory of each compiled variant.

    Triton keeps the compiled objects in the JITFunction's per-device cache; they
    are loaded (and n_regs/n_spills known) once the kernel has run.
    """
    out = []
    for caches in getattr(kernel, "device_caches", {}).values():
        for compiled in caches[0].values():
            meta = compiled.metadata
            out.append({
                "name": compiled.name, "registers": getattr(compiled, "n_regs", None),
                "spill_bytes": getattr(compiled, "n_spills", None), "shared_bytes": meta.shared,
                "num_warps": meta.num_warps, "num_stages": meta.num_stages,
                "arch": getattr(meta.target, "arch", None),
            })
    return out


def _launched(module) -> list[dict]:
    # The kernels of a family that hold compiled variants; jit helpers never do.
    found = []
    for obj in vars(module).values():
        if hasattr(obj, "device_caches"):
            found.extend(triton_compile_info(obj))
    return found


def flashcore_compile_report(provider, case, q, k, v, device: str) -> dict:
    """The kernel family and config dispatch picks for these inputs, and what compiled."""
    import torch

    from .. import dispatch

    if hasattr(provider, "config"):  # a fixed config: no dispatch
        family = next(name for name, module in dispatch.KERNELS.items() if module is provider.module)
        return {"family": family, "config": provider.config.as_dict(), "compiled": _launched(provider.module)}
    backend = getattr(provider, "backend", "auto")
    if backend == "reference":
        return {"family": "reference"}
    family = dispatch.kernel_for(backend, q, k, v, case.causal)
    arch = dispatch.arch_of(torch.device(device))
    config = dispatch.kernel_config(family, arch, case.dtype, case.head_dim, case.causal, case.seq_q, case.sk,
                                    case.batch * case.heads_q, case.heads_q // case.hkv)
    return {"family": family, "arch": arch, "config": config.as_dict(),
            "compiled": _launched(dispatch.KERNELS[family])}


# ----------------------------------------------------------------------------------
# The run
# ----------------------------------------------------------------------------------
def _write(path: str | None, report: dict) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=2)


def _unsupported(args, case, reason: str) -> int:
    _write(args.report, {"status": "unsupported", "provider": args.provider, "reason": reason})
    print(f"flashcore.profile.target: {args.provider} does not run {case.label()}: {reason}", file=sys.stderr)
    return UNSUPPORTED_EXIT


def run(args) -> int:
    import torch

    from ..bench import providers as bench_providers
    from ..bench.correctness import make_inputs

    case = make_case(args.shape, args.causal, args.dtype)
    provider = bench_providers.get_providers([args.provider])[0]
    reason = provider.supports(case)
    if reason:
        return _unsupported(args, case, reason)
    q, k, v = make_inputs(case, device=args.device)
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    unsupported = getattr(bench_providers, "Unsupported", ())
    # session(): e.g. SDPA's backend choice, held around all calls as bench does.
    session = getattr(provider, "session", None)
    with session() if session else _nothing():
        try:
            provider.prepare(case, q, k, v)
        except unsupported as exc:
            return _unsupported(args, case, str(exc))
        for _ in range(args.warmup):
            provider.run()
        sync()
        provider.run()  # the profiled call
        sync()
    report = {"status": "ok", "provider": args.provider, "case": case.label(), "warmup": args.warmup}
    if provider.name.startswith("flashcore"):
        report["flashcore"] = flashcore_compile_report(provider, case, q, k, v, args.device)
    _write(args.report, report)
    return 0


def _nothing():
    import contextlib

    return contextlib.nullcontext()


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.warmup < 0:
        print(f"--warmup: expected >= 0, got {args.warmup}", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
