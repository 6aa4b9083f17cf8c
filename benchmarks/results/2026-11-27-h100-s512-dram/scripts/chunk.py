"""D=128 B=32 H=16 S=512 causal: the 128x128 ping-pong persistent build moves cuDNN's 403 MB from
L2 (call 3) but reads 236 MB from DRAM (cuDNN 201) and runs 12% behind it at ncu's clocks. Is its
item order the difference? Its causal order draws one KV group at a time and ends on a tail of
``causal_chunk`` heads drawn longest first together (97 heads here: half of L2 of K/V). The chunk
is a launch integer, so each variant here is the same binary launched with another tail width
(gluon_fwd.causal_chunk replaced on the host while its plan is prepared). Each variant checked
against the fp64 reference (windows.checked), then windows.run_cells' two windows with auto
(stage 1) and cuDNN. Ratio: auto's time over this one's.
    PYTHONPATH=$PWD/src DTYPE=bf16 PEERS=cudnn python <this script>"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-short-causal/scripts"))
sys.path.insert(0, os.path.join(HERE, "../../2026-11-27-h100-odd-cells/scripts"))
import flashcore  # noqa: E402
from flashcore.kernels import gluon_fwd as gf  # noqa: E402

PP = gf.Config(128, 128, 8, 2, warp_specialize=True, pingpong=True, persistent=True)
CHUNKS = [None, 1, 8, 32]
# Call 6: auto's own persistent config where it has one (D=128 causal S=1k: 128x128 turns; S=2k:
# 192x64), with CELL_TAILS' widths; "d" is the default.
CELL_TAILS = os.environ.get("CELL_TAILS")


def cell(c, log):
    from sweep import peers
    from windows import graphs, inputs, label, passing
    b, h, s, d = c
    sets = inputs(b, h, h, s, d, s + d)
    fns = {"auto": lambda q, k, v: flashcore.attention(q, k, v, causal=True)}
    default = gf.causal_chunk
    auto = gf.heuristic_config(90, d, 2, True, s, s, b * h)
    config = auto if auto.persistent else PP
    chunks = CHUNKS
    if CELL_TAILS:
        chunks = [None if w == "d" else int(w) for w in dict(x.split(":") for x in CELL_TAILS.split())[str(s)].split(",")]
    for chunk in chunks:
        if chunk is not None:
            gf.causal_chunk = lambda *a, w=chunk: w
        try:
            run = gf.prepare(*sets[0], True, d ** -0.5, config, store_lse=True)
        finally:
            gf.causal_chunk = default
        name = f"{'auto' if config is auto else 'pp'} tail {chunk or default(s, d, 2, 1, 50 << 20)}"
        fns[name] = passing(run, sets, 1, True, log, name)
    fns.update(peers(sets, True))
    case = f"B{b} H{h} S{s} D{d} causal"
    return case, f"auto {label(gf.heuristic_config(90, d, 2, True, s, s, b * h))}; auto's time / this", \
        4 * b * h * s * s * d / 2, sets, *graphs(fns, sets)


if __name__ == "__main__":
    from windows import run_cells
    cells = [tuple(int(x) for x in c.split(",")) for c in os.environ.get("CHUNK_CELLS", "32,16,512,128").split()]
    run_cells(os.environ.get("CHUNK_NAME", "chunk"), cells, cell)
