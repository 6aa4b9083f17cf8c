"""flashcore tune: search kernel configs per shape bucket; --apply writes the tuned table."""

from __future__ import annotations

import argparse
import os
import sys

DEFAULTS = dict(budget=24, population=8, elites=4, generations=10, patience=3, timeout=120.0,
                gate_sets=3, warmup_ms=25.0, rep_ms=100.0, confirm_ms=800.0, out="out/tune", seed=0)


def register(subparsers) -> argparse.ArgumentParser:
    p = subparsers.add_parser(
        "tune", help="evolutionary search of kernel configs per shape bucket (GPU; CPU under the interpreter)",
        description=__doc__, formatter_class=argparse.ArgumentDefaultsHelpFormatter,
    )
    what = p.add_argument_group("what to tune")
    what.add_argument("--preset", action="append", default=[], metavar="NAME",
                      help="bench preset(s), e.g. standard, seed (repeat or comma-separate)")
    what.add_argument("--shape", action="append", default=[], metavar="B,Hq,S,D[,Hkv[,Sk]]",
                      help="a custom shape (repeatable); runs unmasked and causal unless --causal says")
    what.add_argument("--causal", choices=("both", "on", "off"), default="both", help="which masks to keep")
    what.add_argument("--dtype", choices=("fp16", "bf16"), default=None,
                      help="override the presets' dtype; --shape defaults to bf16")
    what.add_argument("--family", default="auto", metavar="auto|NAME[,NAME]",
                      help="kernel family to tune: 'auto' tunes, per shape, the family dispatch runs there; "
                           "or names (triton, hopper) or module paths, each tuned on every shape")
    search = p.add_argument_group("search")
    search.add_argument("--budget", type=int, default=DEFAULTS["budget"], help="candidates per shape bucket")
    search.add_argument("--time", type=float, default=None, metavar="SECONDS",
                        help="wall-clock limit for the whole run, shared fairly among buckets")
    search.add_argument("--patience", type=int, default=DEFAULTS["patience"],
                        help="stop a bucket after this many generations without a 1%% gain")
    search.add_argument("--population", type=int, default=DEFAULTS["population"], help="candidates per generation")
    search.add_argument("--elites", type=int, default=DEFAULTS["elites"], help="top-k kept as parents")
    search.add_argument("--generations", type=int, default=DEFAULTS["generations"], help="generation cap")
    search.add_argument("--seed", type=int, default=DEFAULTS["seed"], help="RNG seed (search and inputs)")
    search.add_argument("--no-warm-start", action="store_true",
                        help="do not seed a bucket with the elites of its smaller neighbour")
    ev = p.add_argument_group("evaluation")
    ev.add_argument("--peer", default=None, metavar="NAME[,NAME]",
                    help="peers to beat; the best available is used (default: sdpa-cudnn,sdpa-flash,fa4 on "
                         "CUDA, flashcore-reference on CPU)")
    ev.add_argument("--timeout", type=float, default=DEFAULTS["timeout"], help="seconds per candidate and case")
    ev.add_argument("--gate-sets", type=int, default=DEFAULTS["gate_sets"],
                    help="fresh input sets for the correctness gate (>= 3; the last is x10)")
    ev.add_argument("--warmup-ms", type=float, default=DEFAULTS["warmup_ms"], help="timing warm-up per measurement")
    ev.add_argument("--rep-ms", type=float, default=DEFAULTS["rep_ms"], help="timed repetitions per measurement")
    ev.add_argument("--confirm-rounds", type=int, default=8, metavar="N",
                    help="re-time the best config against the heuristic in N alternating rounds per case "
                         "before proposing it; their paired gain must reach --min-gain (0: off)")
    ev.add_argument("--confirm-ms", type=float, default=DEFAULTS["confirm_ms"], metavar="MS",
                    help="each config's turn in a confirming round: half warm-up, half timed, so that its "
                         "clock settles under the power limit (default %(default)s)")
    ev.add_argument("--offline-arch", type=int, choices=(80, 89, 90), default=None,
                    help="also compile each candidate offline for this GPU arch and reject shared-memory "
                         "overflow (useful on CPU; the GPU's own compile does this on CUDA)")
    out = p.add_argument_group("output")
    out.add_argument("--out", default=None, metavar="DIR",
                     help=f"log, summary, plot, proposed table (default: {DEFAULTS['out']}, or the --resume log's folder)")
    out.add_argument("--resume", default=None, metavar="LOG", help="continue the run recorded in this log")
    out.add_argument("--apply", action="store_true",
                     help="write the tuned table into the package (flashcore/tuned/sm<arch>.json)")
    out.add_argument("--table", default=None, metavar="PATH", help="with --apply: write this file instead")
    out.add_argument("--min-gain", type=float, default=1.03, metavar="X",
                     help="propose a bucket's best config only if it beats the heuristic by this factor "
                          "(default 1.03: ~3%% is the H100's run-to-run noise)")
    out.add_argument("--quiet", action="store_true", help="no progress bar or summary table")
    p.set_defaults(func=main)
    return p


def collect_cases(args) -> list:
    """Cases from --preset and --shape; ValueError explains a bad name or shape."""
    from ..bench import cases as bc

    dtype = bc.DTYPES[args.dtype] if args.dtype else None
    found = []
    for item in args.preset:
        for name in filter(None, (n.strip() for n in item.split(","))):
            found += bc.preset(name, dtype)
    for text in args.shape:
        found += bc.both_causal(bc.parse_shape(text, dtype or bc.DTYPES["bf16"]))
    return bc.filter_causal(found, args.causal)


def options_from_args(args):
    from .run import Options
    from .search import Settings

    if args.gate_sets < 3:
        raise ValueError(f"--gate-sets must be >= 3 (one of them x10 magnitude), got {args.gate_sets}")
    if args.time is not None and args.time <= 0:
        raise ValueError(f"--time must be > 0 seconds, got {args.time}")
    if args.timeout <= 0:
        raise ValueError(f"--timeout must be > 0 seconds, got {args.timeout}")
    if args.confirm_rounds < 0:
        raise ValueError(f"--confirm-rounds must be >= 0 (0 turns the re-timing off), got {args.confirm_rounds}")
    if args.confirm_ms <= 0:
        raise ValueError(f"--confirm-ms must be > 0 ms (each config's turn in a confirming round), got {args.confirm_ms}")
    settings = Settings(population=args.population, elites=args.elites, generations=args.generations,
                        budget=args.budget, patience=args.patience, seed=args.seed)
    return Options(
        cases=collect_cases(args), settings=settings, families=[f.strip() for f in args.family.split(",") if f.strip()],
        peers=_peers(args.peer), time_s=args.time, out_dir=_out_dir(args), resume=args.resume, apply=args.apply,
        table_path=args.table, min_gain=args.min_gain, timeout_s=args.timeout, gate_sets=args.gate_sets, warmup_ms=args.warmup_ms,
        rep_ms=args.rep_ms, offline_arch=args.offline_arch, warm_start=not args.no_warm_start, quiet=args.quiet,
        confirm_rounds=args.confirm_rounds, confirm_ms=args.confirm_ms,
    )


def _out_dir(args) -> str:
    if args.out:
        return args.out
    return os.path.dirname(os.path.abspath(args.resume)) if args.resume else DEFAULTS["out"]


def _peers(text: str | None) -> list[str] | None:
    if text is None:
        return None
    from ..bench.providers import parse_provider_list

    try:
        return parse_provider_list(text)
    except ValueError as exc:
        raise ValueError(str(exc).replace("--providers", "--peer")) from None


def main(args) -> int:
    from .run import TuneError, tune
    from .space import SpaceError
    from .table import TableError

    try:
        opts = options_from_args(args)
        tune(opts)
    except (TuneError, SpaceError, TableError, ValueError) as exc:
        print(f"flashcore tune: error: {exc}", file=sys.stderr)
        return 2
    return 0


def build_parser() -> argparse.ArgumentParser:
    """A stand-alone parser with only ``tune`` (tests and ``python -m flashcore.tune.cli``)."""
    parser = argparse.ArgumentParser(prog="flashcore")
    register(parser.add_subparsers(dest="command", required=True))
    return parser


if __name__ == "__main__":
    args = build_parser().parse_args(sys.argv[1:])
    sys.exit(args.func(args))
