"""The program ncu launches: one provider, one shape, warm-up calls, then one more.

    python -m flashcore.profile.target --provider flashcore --shape 4,16,4096,128 \\
        --dtype bf16 --warmup 5 --report out.json

The warm-up calls compile and settle caches; ncu skips their kernels with
``--launch-skip`` and profiles the last call. ``--report`` receives JSON: the
status (``ok`` or ``unsupported`` with the provider's reason) and, for flashcore's
Triton kernel, the compile report of what actually ran (registers, local/spill
bytes and shared memory from the compiled object, plus the dispatched config).
"""

from __future__ import annotations

import argparse
import json
import sys

DTYPES = ("bf16", "fp16")
UNSUPPORTED_EXIT = 3


def parse_shape(text: str) -> tuple[int, ...]:
    """``"B,Hq,S,D[,Hkv[,Sk]]"`` -> ints, with a clear error for anything else."""
    parts = [p.strip() for p in text.split(",")]
    if not 4 <= len(parts) <= 6 or not all(p.isdigit() for p in parts):
        raise argparse.ArgumentTypeError(
            f"--shape: expected B,Hq,S,D[,Hkv[,Sk]] as positive integers (e.g. 4,16,4096,128), got {text!r}")
    values = tuple(int(p) for p in parts)
    if min(values) <= 0:
        raise argparse.ArgumentTypeError(f"--shape: expected every size > 0, got {text!r}")
    return values


def make_case(shape: tuple[int, ...], causal: bool, dtype: str):
    import torch

    from ..bench.cases import Case

    batch, heads_q, seq_q, head_dim, *rest = shape
    heads_kv = rest[0] if rest else None
    seq_k = rest[1] if len(rest) > 1 else None
    torch_dtype = {"bf16": torch.bfloat16, "fp16": torch.float16}[dtype]
    return Case(batch, heads_q, seq_q, head_dim, heads_kv=heads_kv, seq_k=seq_k, causal=causal, dtype=torch_dtype)


def add_case_arguments(parser, shape_required: bool = True) -> None:
    parser.add_argument("--shape", type=parse_shape, required=shape_required, metavar="B,Hq,S,D[,Hkv[,Sk]]",
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


def flashcore_compile_report(case, device: str) -> dict:
    """The dispatched config for ``case`` and the compiled kernel's resources."""
    import torch

    from .. import dispatch
    from ..kernels import triton_fwd

    arch = dispatch.arch_of(torch.device(device))
    config = dispatch.triton_config(arch, case.dtype, case.head_dim, case.causal, case.seq_q, case.sk)
    return {"arch": arch, "config": config.as_dict(), "compiled": triton_compile_info(triton_fwd._attn_fwd_kernel)}


def _write(path: str | None, report: dict) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(report, f, indent=2)


def run(args) -> int:
    import torch

    from ..bench import providers as bench_providers
    from ..bench.correctness import make_inputs

    case = make_case(args.shape, args.causal, args.dtype)
    provider = bench_providers.get_providers([args.provider])[0]
    reason = provider.supports(case)
    if reason:
        _write(args.report, {"status": "unsupported", "provider": args.provider, "reason": reason})
        print(f"flashcore.profile.target: {args.provider} does not support {case.label()}: {reason}", file=sys.stderr)
        return UNSUPPORTED_EXIT
    q, k, v = make_inputs(case, device=args.device)
    provider.prepare(case, q, k, v)
    sync = torch.cuda.synchronize if args.device.startswith("cuda") else (lambda: None)
    for _ in range(args.warmup):
        provider.run()
    sync()
    provider.run()  # the profiled call
    sync()
    report = {"status": "ok", "provider": args.provider, "case": case.label(), "warmup": args.warmup}
    if provider.name.startswith("flashcore"):
        report["flashcore"] = flashcore_compile_report(case, args.device)
    _write(args.report, report)
    return 0


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.warmup < 0:
        print(f"--warmup: expected >= 0, got {args.warmup}", file=sys.stderr)
        return 2
    return run(args)


if __name__ == "__main__":
    sys.exit(main())
