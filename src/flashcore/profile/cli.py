"""``flashcore profile``: Nsight Compute gates per kernel, or offline compile reports.

    flashcore profile --shape 4,16,4096,128 --provider flashcore,sdpa-cudnn --gate
    flashcore profile --offline
    flashcore profile --sass --shape 2,16,8192,128 --causal

Exit status: 0 fine; 1 a gate failed (``--gate``) or an offline compile failed;
2 the tool could not run (no ncu, unreadable counters, no GPU, bad options).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile

from . import gates as gates_mod
from . import ncu as ncu_mod
from . import tables
from .target import DTYPES, add_case_arguments, make_case

# Flag -> gate name in gates.toml. Giving a flag sets that gate's threshold and enables it.
GATE_FLAGS = (
    ("--min-tensor-pipe", "tensor_pipe", "PCT", "tensor pipe active %% at compute-bound shapes"),
    ("--max-spills", "spills", "BYTES", "spill (local) bytes in the compile report"),
    ("--max-bank-conflicts", "bank_conflicts", "PCT", "bank conflicts as %% of shared wavefronts"),
    ("--min-dram", "dram", "PCT", "DRAM throughput %% at memory-bound shapes"),
    ("--max-registers", "registers", "N", "registers per thread"),
    ("--min-ctas-per-sm", "ctas_per_sm", "N", "theoretical CTAs per SM"),
)
EXIT_GATE, EXIT_ENV = 1, 2


class ProfileError(RuntimeError):
    """The tool cannot run; the message says why and what to do."""


# ----------------------------------------------------------------------------------
# Arguments
# ----------------------------------------------------------------------------------
def _int_list(text: str) -> tuple[int, ...]:
    try:
        return tuple(int(x) for x in text.split(",") if x.strip())
    except ValueError:
        raise argparse.ArgumentTypeError(f"expected comma-separated integers, got {text!r}") from None


def _json_object(text: str) -> dict:
    try:
        value = json.loads(text)
    except json.JSONDecodeError as exc:
        raise argparse.ArgumentTypeError(f"expected a JSON object of config fields, got {text!r}: {exc}") from None
    if not isinstance(value, dict):
        raise argparse.ArgumentTypeError(f"expected a JSON object of config fields, got {text!r}")
    return value


def _regex_override(text: str) -> tuple[str, str]:
    provider, sep, regex = text.partition("=")
    return (provider, regex) if sep and provider and regex else ("*", text)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    run = parser.add_argument_group("profiling under ncu (needs a GPU and Nsight Compute)")
    add_case_arguments(run, shape_required=False)  # --offline needs no shape
    run.add_argument("--provider", default="flashcore",
                     help="comma-separated providers, flashcore first (default: flashcore); a fixed config "
                          "as in bench: 'flashcore-gluon[block_m=64,block_n=128,num_warps=4,num_stages=2]'")
    run.add_argument("--kernel-regex", action="append", default=[], type=_regex_override, metavar="[PROVIDER=]REGEX",
                     help="kernel-name regex for ncu; repeatable; without PROVIDER= applies to all")
    run.add_argument("--warmup", type=int, default=5, help="calls before the profiled one (default 5)")
    run.add_argument("--launches-per-call", type=int, default=1, metavar="N",
                     help="kernels matching the regex per call, e.g. 2 for split-KV + combine (default 1)")
    run.add_argument("--ncu", help="path to ncu (default: PATH, /usr/local/cuda, /opt/nvidia/nsight-compute)")
    run.add_argument("--arch", type=int, help="compute capability as 90 for sm_90 (default: the GPU's)")
    run.add_argument("--extra-metrics", default="", help="more ncu metrics to collect, comma-separated")
    run.add_argument("--timeout", type=float, default=600.0, help="seconds per provider under ncu (default 600)")
    gate = parser.add_argument_group("gates")
    gate.add_argument("--gate", action="store_true", help="exit 1 when any gate fails")
    gate.add_argument("--gates", metavar="TOML", help="gates file (default: the packaged gates.toml)")
    for flag, name, metavar, what in GATE_FLAGS:
        gate.add_argument(flag, type=float, dest=f"gate_{name}", metavar=metavar, help=f"gate on {what}")
    off = parser.add_argument_group("offline compile report (no GPU)")
    off.add_argument("--offline", action="store_true", help="compile all shipped configs for sm_80/89/90")
    off.add_argument("--archs", type=_int_list, default=(80, 89, 90), help="default 80,89,90")
    off.add_argument("--dtypes", default="bf16", help="heuristic dtypes to compile: bf16 (default) or bf16,fp16")
    off.add_argument("--head-dims", type=_int_list, help="default: every multiple of 8 from 16 to 256")
    off.add_argument("--seq-q", type=_int_list, help="query lengths for the heuristic (default 1,16,64,4096)")
    off.add_argument("--no-tuned", action="store_true", help="skip the tuned tables")
    off.add_argument("--jobs", type=int, default=2, help="compile processes (default 2)")
    sass = parser.add_argument_group("SASS loop report (no GPU)")
    sass.add_argument("--sass", action="store_true",
                      help="with --shape: compile the config dispatch gives that shape and count what each KV "
                           "loop issues when no warp takes its vote-guarded branches")
    sass.add_argument("--family", choices=("gluon", "triton"),
                      help="kernel family for --sass (default: gluon on sm_90, else triton)")
    sass.add_argument("--config", type=_json_object, default={}, metavar="JSON",
                      help='config fields to change for --sass, e.g. \'{"max_free": false}\'')
    parser.add_argument("--out", metavar="JSON", help="also write the results as JSON")


def register(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("profile", help="Nsight Compute gates, or --offline compile reports",
                                   description="Nsight Compute metrics and gates per attention kernel, "
                                               "or (--offline) compile reports without a GPU.")
    add_arguments(parser)
    parser.set_defaults(func=run)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flashcore")
    register(parser.add_subparsers(dest="command", required=True))
    return parser


def main(argv: list[str] | None = None) -> int:
    """``flashcore profile ...`` without the top-level CLI (tests call this)."""
    args = build_parser().parse_args(["profile", *(argv or [])])
    return args.func(args)


def run(args) -> int:
    try:
        if args.sass:
            return run_sass(args)
        return run_offline(args) if args.offline else run_ncu(args)
    except (ProfileError, ncu_mod.NcuUnavailable, gates_mod.GateConfigError) as exc:
        print(f"flashcore profile: error: {exc}", file=sys.stderr)
        return EXIT_ENV


# ----------------------------------------------------------------------------------
# Offline
# ----------------------------------------------------------------------------------
def run_offline(args) -> int:
    from . import offline

    dtypes = tuple(d.strip() for d in args.dtypes.split(",") if d.strip())
    bad = [d for d in dtypes if d not in DTYPES]
    if bad or not dtypes:
        raise ProfileError(f"--dtypes: expected a comma-separated subset of {DTYPES}, got {args.dtypes!r}")
    try:
        result = offline.sweep(
            archs=args.archs, dtypes=dtypes, head_dims=args.head_dims or offline.HEAD_DIMS,
            seq_q=args.seq_q or offline.SEQ_Q, jobs=args.jobs, tuned=not args.no_tuned,
        )
    except offline.OfflineError as exc:
        raise ProfileError(str(exc)) from exc
    con = tables.console()
    con.print(tables.offline_table(result.rows))
    fp16_note = "" if "fp16" in dtypes else " (heuristic compiled in bf16 only; fp16 shares its code path: --dtypes bf16,fp16 to check)"
    con.print(f"{len(result.rows)} compiles in {result.seconds:.1f} s, {len(result.failed)} failed{fp16_note}")
    if result.skipped:
        con.print(f"not compiled (resources.py has no compile for the hopper family): {len(result.skipped)} tuned "
                  f"entries of other kernel families: {', '.join(result.skipped[:6])}"
                  f"{' ...' if len(result.skipped) > 6 else ''}")
    _write_json(args.out, result.as_dict())
    for row in result.failed:
        print(f"FAIL sm_{row['arch']} D{row['head_dims']} {row['dtype']} causal={row['causal']} "
              f"{row['config']}: {'; '.join(row['problems'])}", file=sys.stderr)
    return EXIT_GATE if result.failed else 0


# ----------------------------------------------------------------------------------
# SASS loops
# ----------------------------------------------------------------------------------
def sass_config(args, case, arch: int, family: str):
    """The config dispatch gives ``case`` on ``arch`` for ``family``, with ``--config``'s fields."""
    import dataclasses

    from ..dispatch import KERNELS, kernel_config

    config = kernel_config(family, arch, case.dtype, case.head_dim, case.causal, case.seq_q, case.sk,
                           case.batch * case.heads_q, case.heads_q // case.hkv)
    fields = {f.name for f in dataclasses.fields(KERNELS[family].Config)}
    unknown = sorted(set(args.config) - fields)
    if unknown:
        raise ProfileError(f"--config: {family} configs have no field {', '.join(unknown)}; "
                           f"expected some of {', '.join(sorted(fields))}")
    config = dataclasses.replace(config, **args.config)
    check = getattr(KERNELS[family], "constraints", None)
    why = check(config, case.head_dim) if check else None
    if why:
        raise ProfileError(f"--config: {config} cannot compile at D={case.head_dim}: {why}")
    return config


def run_sass(args) -> int:
    from . import sass

    if args.shape is None:
        raise ProfileError("--sass: expected --shape B,Hq,S,D[,Hkv[,Sk]] (e.g. --shape 2,16,8192,128), got nothing")
    case = make_case(args.shape, args.causal, args.dtype)
    arch = args.arch or 90
    family = args.family or ("gluon" if arch == 90 else "triton")
    if family == "gluon" and arch != 90:
        raise ProfileError(f"--family gluon: compiles for sm_90 only, got --arch {arch}; pass --arch 90")
    config = sass_config(args, case, arch, family)
    try:
        result = sass.report(family, arch, case.head_dim, args.dtype, case.causal, config)
    except sass.SassError as exc:
        raise ProfileError(str(exc)) from exc
    con = tables.console()
    con.print(f"{family} sm_{arch} D={case.head_dim} {args.dtype} {'causal' if case.causal else 'full'}: {config}")
    con.print(tables.sass_table(result["loops"]))
    size = result["instructions"]
    con.print(f"binary: {size['total']} instructions, {size['in_kv_loops']} in the KV loops, "
              f"{size['outside_kv_loops']} outside (setup, producer, each item's code between its loops)")
    _write_json(args.out, result)
    return 0


# ----------------------------------------------------------------------------------
# Under ncu
# ----------------------------------------------------------------------------------
def _gate_overrides(args) -> dict[str, float]:
    return {name: getattr(args, f"gate_{name}") for _, name, _, _ in GATE_FLAGS
            if getattr(args, f"gate_{name}") is not None}


def _check_args(args) -> list[str]:
    if args.shape is None:
        raise ProfileError("--shape: expected B,Hq,S,D[,Hkv[,Sk]] (e.g. --shape 4,16,4096,128), got nothing; "
                           "or pass --offline to compile without a GPU")
    if args.warmup < 1:
        raise ProfileError(f"--warmup: expected >= 1 so the profiled call is warm, got {args.warmup}")
    if args.launches_per_call < 1:
        raise ProfileError(f"--launches-per-call: expected >= 1, got {args.launches_per_call}")
    from ..bench.providers import is_config_spec, known_providers, parse_config_spec, split_provider_list

    providers = split_provider_list(args.provider)
    unknown = [p for p in providers if p not in known_providers() and not is_config_spec(p)]
    if not providers or unknown:
        raise ProfileError(f"--provider: expected a comma list of {', '.join(known_providers())}, or a fixed "
                           f"config flashcore-<family>[field=value,...]; got {args.provider!r}"
                           + (f" (unknown: {', '.join(unknown)})" if unknown else ""))
    for spec in filter(is_config_spec, providers):
        try:
            parse_config_spec(spec)
        except ValueError as exc:
            raise ProfileError(f"--provider: {exc}") from None
    return providers


def detect_arch(explicit: int | None) -> int:
    if explicit:
        return explicit
    import torch

    if not torch.cuda.is_available():
        raise ProfileError("no CUDA GPU visible to PyTorch: ncu profiling needs one. "
                           "Use `flashcore profile --offline` for compile reports without a GPU")
    major, minor = torch.cuda.get_device_capability()
    return major * 10 + minor


def run_ncu(args) -> int:
    providers = _check_args(args)
    case = make_case(args.shape, args.causal, args.dtype)
    gate_set = gates_mod.override(gates_mod.load(args.gates), _gate_overrides(args))
    ncu = ncu_mod.find_ncu(args.ncu)
    arch = detect_arch(args.arch)
    regime = gates_mod.regime(case, gate_set)
    overrides = dict(args.kernel_regex)
    results = [profile_provider(p, case, args, ncu, arch, overrides) for p in providers]
    rows = {r["provider"]: r.get("metrics", {}) for r in results}
    gate_results = gates_mod.evaluate(gate_set, rows, regime)
    _report(args, case, arch, ncu, regime, gate_set, results, gate_results)
    if all(r["status"] == "error" for r in results):
        return EXIT_ENV
    failed = gates_mod.failures(gate_results)
    return EXIT_GATE if args.gate and failed else 0


def _target_command(provider: str, args, report_path: str) -> list[str]:
    cmd = [sys.executable, "-m", "flashcore.profile.target", "--provider", provider,
           "--shape", args.shape, "--dtype", args.dtype,
           "--warmup", str(args.warmup), "--report", report_path]
    return cmd + (["--causal"] if args.causal else [])


def extra_metrics(args) -> tuple[str, ...]:
    return tuple(m.strip() for m in args.extra_metrics.split(",") if m.strip())


def ncu_command(provider: str, args, ncu: str, arch: int, overrides: dict, workdir: str) -> list[str]:
    """The full ncu command line for one provider (also shown in the JSON)."""
    regex = ncu_mod.kernel_regex(provider, overrides)
    return ncu_mod.build_command(
        ncu, regex, launch_skip=args.warmup * args.launches_per_call, launch_count=args.launches_per_call,
        metrics=ncu_mod.metrics_for(arch, extra_metrics(args)), log_file=os.path.join(workdir, "ncu.csv"),
        target=_target_command(provider, args, os.path.join(workdir, "target.json")),
    )


def profile_provider(provider: str, case, args, ncu: str, arch: int, overrides: dict) -> dict:
    """Profile one provider; failures of this provider become an ``error`` row."""
    result = {"provider": provider, "status": "error"}
    with tempfile.TemporaryDirectory(prefix="flashcore-profile-") as workdir:
        try:
            cmd = ncu_command(provider, args, ncu, arch, overrides, workdir)
            result["command"] = cmd
            run = ncu_mod.run(cmd, os.path.join(workdir, "ncu.csv"), args.timeout)
            target = _read_json(os.path.join(workdir, "target.json"))
            if target.get("status") == "unsupported":
                return {**result, "status": "unsupported", "message": target.get("reason", "")}
            regex = cmd[cmd.index("--kernel-name") + 1].removeprefix("regex:")
            ncu_mod.check_output(run.output, run.returncode, regex)
            result.update(_measured(run.csv_text, provider))
            if gates_mod.is_gated(provider):
                result["compile"] = compile_report(case, arch, target.get("flashcore"))
                result["metrics"].update(_compile_metrics(result["compile"]))
        except ncu_mod.NcuUnavailable:
            raise
        except ncu_mod.NcuError as exc:
            result["message"] = str(exc)
    return result


def _read_json(path: str) -> dict:
    try:
        with open(path) as f:
            return json.load(f)
    except (OSError, ValueError):
        return {}


def _measured(csv_text: str, provider: str) -> dict:
    records = ncu_mod.parse_csv(csv_text)
    if not records:
        raise ncu_mod.NcuError(f"{provider}: ncu wrote no kernel rows to its CSV")
    # With several kernels per call (split-KV + combine), the attention kernel is the longest.
    main = max(records, key=lambda r: r.metrics.get("gpu__time_duration.sum") or 0.0)
    metrics = ncu_mod.summarize(main)
    metrics["smem_kib"] = None if metrics["smem_bytes"] is None else metrics["smem_bytes"] / 1024
    return {"status": "ok", "kernel": main.name, "kernels_profiled": [r.name for r in records],
            "device_cc": main.cc, "grid": main.grid, "block": main.block,
            "metrics": metrics, "ncu_raw": main.metrics}


def compile_report(case, arch: int, from_target: dict | None) -> dict:
    """Registers, spills and shared memory of flashcore's kernel for the config that ran.

    On a GPU the target read them from the compiled object of the kernel that ran.
    Without its report (it crashed, or tests replay a CSV), recompile the portable
    kernel offline (resources.py) with the config dispatch picks for that family.
    """
    if from_target and from_target.get("compiled"):
        config = from_target["config"]
        compiled = [c for c in from_target["compiled"] if c["num_warps"] == config["num_warps"]]
        chosen = (compiled or from_target["compiled"])[0]
        return {"source": "compiled object (GPU)", "family": from_target["family"], "config": config, **chosen}
    family = (from_target or {}).get("family", "triton")
    if family != "triton":
        return {"source": "none", "family": family,
                "error": f"no compile report: the target did not report one and resources.py compiles "
                         f"the portable kernel only, not the {family} family"}
    return _offline_report(case, arch)


def _offline_report(case, arch: int) -> dict:
    import torch

    from .. import dispatch
    from .offline import compile_one

    config = dispatch.triton_config(arch, case.dtype, case.head_dim, case.causal, case.seq_q, case.sk,
                                    case.batch * case.heads_q, case.heads_q // case.hkv)
    dtype = "bf16" if case.dtype == torch.bfloat16 else "fp16"
    rep = compile_one(arch, case.head_dim, dtype, case.causal, config)
    return {"source": "offline recompile (resources.py)", "family": "triton", "config": config.as_dict(),
            "registers": rep.registers, "spill_bytes": rep.spill_bytes, "shared_bytes": rep.shared_bytes,
            "error": rep.error}


def _compile_metrics(report: dict) -> dict:
    shared = report.get("shared_bytes")
    return {"compile_registers": report.get("registers"), "spill_bytes": report.get("spill_bytes"),
            "compile_smem_kib": None if shared is None else shared / 1024}


def _report(args, case, arch, ncu, regime, gate_set, results, gate_results) -> None:
    con = tables.console()
    intensity = gates_mod.intensity(case)
    title = f"{case.label()}  sm_{arch}  {regime.replace('_', '-')} ({intensity:,.0f} FLOP/B)"
    con.print(tables.profile_table(title, results, extra_metrics(args)))
    for r in results:
        if r["status"] != "ok":
            con.print(f"[yellow]{r['provider']}: {r['status']}: {r.get('message', '')}[/]")
    if gate_results:
        con.print(tables.gates_table(gate_results))
    for f in gates_mod.failures(gate_results):
        print(f"GATE FAILED: {f.gate} ({f.provider}): {f.message}, expected {f.expected}", file=sys.stderr)
    if args.out:
        _write_json(args.out, _json_payload(case, arch, ncu, regime, intensity, gate_set, results, gate_results))


def _json_payload(case, arch, ncu, regime, intensity, gate_set, results, gate_results) -> dict:
    from ..cli import environment

    return {
        "tool": "flashcore profile", "mode": "ncu", "environment": environment(),
        "ncu": {"path": ncu, "version": ncu_mod.ncu_version(ncu)},
        "case": case.label(), "arch": arch, "regime": regime, "flops_per_byte": intensity,
        "gates_source": gate_set.source, "providers": results,
        "gates": [g.as_dict() for g in gate_results], "gates_failed": len(gates_mod.failures(gate_results)),
    }


def _write_json(path: str | None, payload: dict) -> None:
    if path:
        with open(path, "w") as f:
            json.dump(payload, f, indent=2, default=str)
