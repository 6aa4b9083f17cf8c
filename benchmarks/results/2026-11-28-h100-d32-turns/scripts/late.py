"""The P @ V wait after the softmax: the tree's gluon_fwd (PV_WAIT_LATE, the wait in the rescale's
asm after its branch, where ptxas keeps it) against a second copy of the same file with
PV_WAIT_LATE off (the Gluon wait, which ptxas hoists above the exps), each with auto's config
and with max_free off, each checked against the fp64 reference (windows.passing); auto's early
time over each, 30 ms paired rounds / alone LONG_MS.
    PYTHONPATH=$PWD/src DTYPE=bf16 LATE_CELLS="2,8,8,3000,32,1 ..." python <this script>
LATE_CELLS: b,hq,hkv,s,d,causal per cell. LATE_VARIANTS: which of early, late, early-nomf,
late-nomf (default all four)."""
import dataclasses
import importlib.util
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
from flashcore.kernels import gluon_fwd as late  # noqa: E402

# Triton's cache key hashes each jit function's source, not the module's constants: the early
# copy turns the switch off in the source of _kv_step itself, so its binaries get keys of their own.
SRC = open(late.__file__).read()
EARLY_SRC = SRC.replace("LATE: gl.constexpr = LAZY and PV_WAIT_LATE", "LATE: gl.constexpr = False").replace(
    "LATE_FREE: gl.constexpr = PV_WAIT_LATE and WS", "LATE_FREE: gl.constexpr = False")
assert EARLY_SRC.count("gl.constexpr = False") == SRC.count("gl.constexpr = False") + 2
EARLY_FILE = os.path.join(os.environ.get("TMPDIR", "/tmp"), "gluon_fwd_early.py")
open(EARLY_FILE, "w").write(EARLY_SRC)
spec = importlib.util.spec_from_file_location("flashcore.kernels.gluon_fwd_early", EARLY_FILE)
early = importlib.util.module_from_spec(spec)
sys.modules[spec.name] = early  # dataclasses look their module up there
spec.loader.exec_module(early)

CELLS = [tuple(int(x) for x in c.split(",")) for c in os.environ["LATE_CELLS"].split()]
WANT = os.environ.get("LATE_VARIANTS", "early late early-nomf late-nomf").split()


def cell(c, log):
    from windows import graphs, inputs, label, passing
    b, hq, hkv, s, d, causal = c
    causal, group = bool(causal), hq // hkv
    sets = inputs(b, hq, hkv, s, d, s + d + hkv)
    auto = late.heuristic_config(90, d, 2, causal, s, s, b * hq, group=group)
    fns = {}
    for name in WANT:
        mod = early if name.startswith("early") else late
        config = dataclasses.replace(auto, max_free=False) if name.endswith("nomf") else auto
        if name.endswith("nomf") and not auto.max_free:
            continue
        run = mod.prepare(*sets[0], causal, d ** -0.5, mod.Config(**dataclasses.asdict(config)), store_lse=True)
        fns[name] = passing(run, sets, group, causal, log, f"{c} {name}")
    case = f"B{b} H{hq}/{hkv} S{s} D{d} {'causal' if causal else 'full'}"
    flops = 4 * b * hq * s * s * d / (2 if causal else 1)
    return case, f"{label(auto)}; early auto's time / this", flops, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    run_cells(os.environ.get("LATE_NAME", "late"), CELLS, cell)
