"""Opcode histogram of the unmasked KV loop (the shortest loop body with 66 MUFU.EX2) per build."""
import sys, re, collections
sys.path.insert(0, ".scratch")
import sass
from flashcore.kernels import gluon_fwd as gf
C = gf.Config
cfgs = {"p128": (128, False, C(128, 128, 8, 2, True, persistent=True)),
        "p128c": (128, True, C(128, 128, 8, 2, True, persistent=True)),
        "ws192": (64, False, C(192, 128, 12, 2, True, True)),
        "pp192c": (64, True, C(192, 128, 12, 2, True, True, True)),
        "s1": (64, False, C(64, 128, 4, 2)),
        "s64c": (128, True, C(64, 64, 4, 2))}
OP = re.compile(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)(.*)")
for name in sys.argv[1:] or ["p128"]:
    d, causal, cfg = cfgs[name]
    c = sass.build(d, "bf16", causal, cfg)
    t = sass.sass(c)
    open(f"/tmp/{name}.sass", "w").write(t)
    s = t.splitlines()
    best = None
    for e, l in enumerate(s):
        m = re.search(r"@!?P\d BRA `\(\.L_x_(\d+)\)", l)
        if not m: continue
        st = [i for i, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")][0]
        if st > e: continue
        ops = [OP.match(x).group(1) for x in s[st:e + 1] if OP.match(x)]
        if ops.count("MUFU.EX2") < 16: continue
        if best is None or len(ops) < len(best): best = ops
    h = collections.Counter(o.split(".")[0] for o in best)
    keys = ["FADD", "FMUL", "FFMA", "FMNMX", "SHFL", "MOV", "MUFU", "F2FP", "HGMMA", "FSEL", "FSETP"]
    print(f"{name:7s} n={len(best)} " + " ".join(f"{k}={h.get(k,0)}" for k in keys)
          + f" U*={sum(v for k, v in h.items() if k.startswith('U'))}")
