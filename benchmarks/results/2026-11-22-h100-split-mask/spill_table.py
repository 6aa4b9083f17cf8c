"""Offline ptxas spill bytes (Triton 3.6, sm_90a, bf16, D=64) of the 192x128 ping-pong configs, for
HEAD (c3683e0) and for split_mask.patch applied, with and without its parts. No GPU needed:
  python spill_table.py   (from the repository root, with the package importable)
Each variant is written over src/flashcore/kernels/gluon_fwd.py and restored at the end."""
import importlib, subprocess
from pathlib import Path

SRC = Path("src/flashcore/kernels/gluon_fwd.py")
HERE = Path(__file__).parent
head = subprocess.run(["git", "show", "c3683e0:" + str(SRC)], capture_output=True, text=True, check=True).stdout
subprocess.run(["git", "apply", str(HERE / "split_mask.patch")], check=True)
patched = SRC.read_text()
SPLIT = '''        lane = gl.expand_dims(cols & 6, 0)
        c = gl.expand_dims(cols & ~6, 0)
        visible = visible & (c <= gl.expand_dims(offs_m + (causal_offset - col0), 1) - lane)'''
WHOLE = '''        visible = visible & (gl.expand_dims(col0 + cols, 0) <= gl.expand_dims(offs_m, 1) + causal_offset)'''
OPQ = '''    seq_k = sched[3]
    if PERSISTENT:
        seq_k = _opaque(seq_k)
'''
assert SPLIT in patched and OPQ in patched
variants = {"HEAD": head, "patch": patched, "patch, whole-column mask": patched.replace(SPLIT, WHOLE),
            "patch, no opaque Sk": patched.replace(OPQ, "    seq_k = sched[3]\n")}
from flashcore.kernels import gluon_fwd as gf
from flashcore.profile import resources
C = gf.Config
CFGS = [("causal, one CTA per item, 2 stages", True, C(192, 128, 12, 2, True, True)),
        ("causal, one CTA per item, 3 stages", True, C(192, 128, 12, 3, True, True)),
        ("causal, persistent, 2 stages", True, C(192, 128, 12, 2, True, True, True)),
        ("causal, persistent, 3 stages", True, C(192, 128, 12, 3, True, True, True)),
        ("full, one CTA per item, 2 stages", False, C(192, 128, 12, 2, True, True)),
        ("full, persistent, 3 stages", False, C(192, 128, 12, 3, True, True, True))]
try:
    print(f"{'config':38s}" + "".join(f"{v:>26s}" for v in variants))
    table = {}
    for name, src in variants.items():
        SRC.write_text(src)
        importlib.reload(gf)
        table[name] = [resources.compile_gluon_fwd(64, "bf16", c, cfg).spill_bytes for _, c, cfg in CFGS]
    for i, (label, _, _) in enumerate(CFGS):
        print(f"{label:38s}" + "".join(f"{table[v][i]:>26d}" for v in variants))
finally:
    SRC.write_text(head)
