"""``flashcore bench``: correctness and speed of flashcore and its peers, per shape.

``register(subparsers)`` adds the sub-command to the top-level ``flashcore`` parser;
``main(argv)`` runs it standalone (``python -m flashcore.bench.cli``).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

import torch

from .cases import DTYPES, PRESETS, SHAPE_FORMAT, parse_shape
from .correctness import SETS
from .providers import known_providers, parse_provider_list

DESCRIPTION = """\
Correctness (fresh random inputs, NaN-poisoned outputs, fp32/fp64 reference) and speed
(CUDA events; eager calls and CUDA-graph replays) of flashcore and its peers.
Writes bench.json, bench.csv and PNG plots to --out. Ctrl-C keeps the cases finished so far.
Without a GPU it runs the tiny preset on CPU: CPU timings, not performance claims."""

EPILOG = f"""\
presets: seed (B 1-2, H8, S512, D64, fp16), standard (B*S=16384, H*D=2048, S 512..16k, bf16),
  gqa (Hq32/Hkv8, D128, S 1k..16k), odd (S 1/17/1000/3000, D 32/80/96/256), tiny (CPU).
providers: {', '.join(known_providers())},
  or one fixed config of a kernel family: flashcore-<family>[field=value,...]
examples:
  flashcore bench                                   # tiny on CPU; seed + standard on a GPU
  flashcore bench --preset standard --dtype fp16 --mode graph
  flashcore bench --shape 1,32,4096,128,8 --providers flashcore,sdpa,fa4
  flashcore bench --shape 32,16,512,128 --causal on --mode graph \\
    --providers 'flashcore,flashcore-gluon[block_m=64,block_n=64,num_warps=4,num_stages=3]'"""

QUICK = {"sets": 2, "warmup_ms": 10.0, "rep_ms": 60.0}
DEFAULT = {"sets": SETS, "warmup_ms": 50.0, "rep_ms": 250.0}
# A GPU slows as it heats during a case (final-7: 1965 -> 1770 MHz over the run; one config read
# 3683 and 4082 us back to back). Four rounds of alternating order spread that over the providers.
GPU_ROUNDS = 4
# The longest a GPU check (compiles included: CuTe DSL and FA4 take up to a minute a shape) or
# timing round should take; past it the loop is taken to hang (``runner._Watchdog``).
STALL_LIMIT_S = 600.0


def _shape_arg(text: str) -> str:
    try:
        parse_shape(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--shape ")) from None
    return text


def _providers_arg(text: str) -> list[str]:
    try:
        return parse_provider_list(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).removeprefix("--providers: ").removeprefix("--providers ")) from None


def _positive(kind):
    def parse(text: str):
        try:
            value = kind(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}") from None
        if value <= 0:
            raise argparse.ArgumentTypeError(f"expected a positive {kind.__name__}, got {text!r}")
        return value

    return parse


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--preset", action="append", choices=list(PRESETS), metavar="NAME",
                        help=f"shape preset, repeatable: {', '.join(PRESETS)} "
                             "(default: tiny without a GPU, seed + standard with one)")
    parser.add_argument("--shape", action="append", type=_shape_arg, metavar=SHAPE_FORMAT,
                        help="custom shape, repeatable; runs unmasked and causal (see --causal)")
    parser.add_argument("--providers", type=_providers_arg, metavar="A,B,...",
                        help="comma list of providers (default: all); flashcore-<family>[field=value,...] "
                             "runs one fixed config of a kernel family, to compare configs in one run")
    parser.add_argument("--dtype", choices=list(DTYPES), help="override the presets' dtype (seed: fp16, others: bf16)")
    parser.add_argument("--causal", choices=("both", "on", "off"), default="both",
                        help="which masks to run (default: both)")
    parser.add_argument("--mode", choices=("eager", "graph", "both"),
                        help="timing mode (default: both on a GPU, eager on CPU; graph needs CUDA)")
    parser.add_argument("--device", choices=("auto", "cuda", "cpu"), default="auto",
                        help="where to run (default: cuda when available)")
    parser.add_argument("--out", type=Path, help="output directory (default: ./bench-out; with --report, beside the file)")
    parser.add_argument("--report", type=Path, metavar="BENCH_JSON",
                        help="run nothing: print a saved bench.json's tables (standing against the best peer "
                             "included) and write its plots; only --out and --no-plots apply")
    parser.add_argument("--sets", type=_positive(int),
                        help=f"correctness input sets per provider and shape (default {SETS}; the last is x10)")
    parser.add_argument("--quick", action="store_true",
                        help=f"fewer sets ({QUICK['sets']}) and shorter timing ({QUICK['rep_ms']:g} ms per cell)")
    parser.add_argument("--warmup-ms", type=_positive(float), help="warm-up per cell and mode (default 50)")
    parser.add_argument("--rep-ms", type=_positive(float), help="timing budget per cell and mode (default 250)")
    parser.add_argument("--rounds", type=_positive(int),
                        help="timing rounds per case: its providers take turns, order reversed every other "
                             "round, rep-ms split across rounds (default 4 on a GPU, 1 on CPU)")
    parser.add_argument("--seed", type=int, default=0, help="base seed of the random inputs")
    parser.add_argument("--time-limit", type=_positive(float), metavar="SECONDS",
                        help="stop after this long and write the cases finished so far")
    parser.add_argument("--stall-limit", type=_positive(float), metavar="SECONDS",
                        help=f"end the process (status 124) when one check or timing round runs this long: "
                             f"a kernel that never finishes (default {STALL_LIMIT_S:g} on a GPU, none on CPU, "
                             "where the interpreter may take longer)")
    parser.add_argument("--no-plots", action="store_true", help="skip the PNG plots")
    parser.add_argument("--no-clocks", action="store_true",
                        help="do not sample the SM clock and power while timing (records' sm_mhz, power_w)")


def register(subparsers) -> argparse.ArgumentParser:
    parser = subparsers.add_parser("bench", help="correctness and speed vs SDPA, FA4, FA2",
                                   description=DESCRIPTION, epilog=EPILOG,
                                   formatter_class=argparse.RawDescriptionHelpFormatter)
    add_arguments(parser)
    parser.set_defaults(func=run_from_args, bench_parser=parser)
    return parser


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="flashcore")
    register(parser.add_subparsers(dest="command", required=True))
    return parser


def resolve(args) -> dict:
    """Defaults that depend on the machine; argparse errors for impossible requests."""
    parser = args.bench_parser
    cuda = torch.cuda.is_available()
    if args.device == "cuda" and not cuda:
        parser.error("argument --device: expected a CUDA GPU for 'cuda', found none; use --device cpu or auto")
    device = "cuda" if args.device == "auto" and cuda else ("cpu" if args.device == "auto" else args.device)
    on_gpu = device == "cuda"
    mode = args.mode or ("both" if on_gpu else "eager")
    if mode in ("graph", "both") and not on_gpu:
        parser.error(f"argument --mode: {mode!r} needs CUDA graphs, so a CUDA device; got device {device}. "
                     "Use --mode eager on CPU")
    presets = args.preset or ([] if args.shape else (["seed", "standard"] if on_gpu else ["tiny"]))
    budget = QUICK if args.quick else DEFAULT
    return {
        "device": device,
        "modes": ("eager", "graph") if mode == "both" else (mode,),
        "presets": list(dict.fromkeys(presets)),
        "sets": args.sets or budget["sets"],
        "warmup_ms": args.warmup_ms or budget["warmup_ms"],
        "rep_ms": args.rep_ms or budget["rep_ms"],
        # An even count: with the order reversed every other round, a linear drift cancels.
        "rounds": args.rounds or (GPU_ROUNDS if on_gpu else 1),
        "stall_limit_s": args.stall_limit or (STALL_LIMIT_S if on_gpu else None),
    }


def make_plan(args):
    from .runner import Plan, plan_cases

    settings = resolve(args)
    dtype = DTYPES[args.dtype] if args.dtype else None
    cases = plan_cases(settings["presets"], args.shape, dtype, args.causal)
    return Plan(cases=cases, providers=args.providers, modes=settings["modes"], device=settings["device"],
                sets=settings["sets"], warmup_ms=settings["warmup_ms"], rep_ms=settings["rep_ms"],
                seed=args.seed, time_limit_s=args.time_limit, rounds=settings["rounds"], clocks=not args.no_clocks,
                stall_limit_s=settings["stall_limit_s"])


def run_from_args(args, *, timer=None, ceilings=None, console=None) -> int:
    """Run ``flashcore bench``; returns the exit status (130 when stopped by Ctrl-C)."""
    from . import report
    from .runner import run_bench

    console = console or _console()
    if args.report:
        return report_from_file(args, console)
    plan = make_plan(args)
    if plan.device != "cuda":
        console.print("[yellow]No CUDA device in use: running on CPU (timings are not performance claims).[/]")
    out_dir = args.out or Path("bench-out")
    checkpoint = lambda result: report.write_data(result, out_dir)  # noqa: E731 - Ctrl-C/kill safety
    with _progress(console) as progress:
        result = run_bench(plan, timer=timer, ceilings=ceilings, progress=progress, on_case=checkpoint)
    report.print_report(result, console)
    written = report.write_data(result, out_dir)
    if not args.no_plots:
        written += _plots(result, out_dir, console)
    console.print("wrote " + ", ".join(str(p) for p in written))
    return 130 if result.stopped.startswith("interrupted") else 0


def load_result(path: Path, parser) -> "BenchResult":
    """A saved bench.json as the BenchResult it was written from (argparse errors name the file)."""
    import json

    from .runner import SCHEMA, BenchResult

    try:
        doc = json.loads(path.read_text())
    except (OSError, ValueError) as exc:
        parser.error(f"argument --report: expected a bench.json written by flashcore bench, could not read "
                     f"{path}: {exc}")
    if not isinstance(doc, dict) or doc.get("schema") != SCHEMA or not isinstance(doc.get("records"), list):
        found = doc.get("schema") if isinstance(doc, dict) else type(doc).__name__
        parser.error(f"argument --report: expected a bench.json of schema {SCHEMA!r} with records, got schema "
                     f"{found!r} in {path}; pass the bench.json that flashcore bench wrote")
    return BenchResult.from_json(doc)


def report_from_file(args, console) -> int:
    from . import report

    result = load_result(args.report, args.bench_parser)
    report.print_report(result, console)
    if not args.no_plots:
        written = _plots(result, args.out or args.report.parent, console)
        console.print("wrote " + (", ".join(str(p) for p in written) or "no plots"))
    return 0


def _console():
    from rich.console import Console

    console = Console()
    # Piped to a file (a remote GPU job, CI), rich would wrap tables at 80 columns.
    return console if console.is_terminal else Console(width=200)


def _plots(result, out_dir: Path, console) -> list[Path]:
    from . import report

    try:
        return report.write_plots(result, out_dir)
    except ImportError:
        console.print("[yellow]plots skipped: matplotlib is not installed (pip install 'flashcore[plot]')[/]")
        return []


class _progress:
    """A rich progress bar on stderr, exposed as the runner's ``progress(done, total, what)``.

    Not on a terminal (a remote GPU job's log), it prints one plain line per shape instead,
    so a log cut short still shows how far the run got.
    """

    def __init__(self, console):
        import time

        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn

        self.err = Console(stderr=True)
        self.bar = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                            TimeElapsedColumn(), console=self.err, transient=True)
        self.task = None
        self.shape, self.start, self.clock = None, time.monotonic(), time.monotonic

    def _log_shape(self, done: int, total: int, what: str) -> None:
        shape = what.split(" · ")[0]
        if shape != self.shape and not self.err.is_terminal:
            self.shape = shape
            print(f"[{done}/{total} cells, {self.clock() - self.start:.0f} s] {shape}", file=sys.stderr, flush=True)

    def __enter__(self):
        self.bar.start()
        self.task = self.bar.add_task("measuring ceilings (matmul, copy)", total=None)
        return self

    def __call__(self, done: int, total: int, what: str) -> None:
        self.bar.update(self.task, completed=done, total=total, description=what)
        self._log_shape(done, total, what)

    def __exit__(self, *exc):
        self.bar.stop()
        return False


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(["bench", *(sys.argv[1:] if argv is None else argv)])
    try:
        return args.func(args)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(main())
