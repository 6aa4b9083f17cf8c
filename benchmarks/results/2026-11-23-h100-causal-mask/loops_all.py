"""Every KV loop (back edge with >= 16 MUFU.EX2) per build: length and opcode mix; plus whole-kernel totals."""
import sys, re, collections
sys.path.insert(0, ".scratch"); sys.path.insert(0, ".scratch/rs")
import sass
from flashcore.kernels import gluon_fwd as gf
C = gf.Config
cfgs = {"p128": (128, False, C(128, 128, 8, 2, True, persistent=True)),
        "p128c": (128, True, C(128, 128, 8, 2, True, persistent=True)),
        "ws192": (64, False, C(192, 128, 12, 2, True, True)),
        "ws192c": (64, True, C(192, 128, 12, 2, True, True)),
        "pp192c": (64, True, C(192, 128, 12, 2, True, True, True)),
        "s1": (64, False, C(64, 128, 4, 2)),
        "s64c": (128, True, C(64, 64, 4, 2)),
        "s1c": (64, True, C(64, 128, 4, 2)), "s128c": (128, True, C(128, 128, 8, 2)), "s64c64": (64, True, C(64, 64, 4, 2))}
OP = re.compile(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)(.*)")
keys = ["FADD", "FMUL", "FFMA", "FMNMX", "SHFL", "MOV", "MUFU", "F2FP", "HGMMA", "FSEL", "FSETP", "ISETP", "LOP3", "IADD3", "SEL", "BAR", "SYNCS"]
for name in sys.argv[1:]:
    d, causal, cfg = cfgs[name]
    c = sass.build(d, "bf16", causal, cfg)
    t = sass.sass(c)
    s = t.splitlines()
    print(name, "total", sum(1 for x in s if OP.match(x)))
    for e, l in enumerate(s):
        m = re.search(r"@!?P\d BRA `\(\.L_x_(\d+)\)", l)
        if not m: continue
        st = [i for i, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")][0]
        if st > e: continue
        ops = [OP.match(x).group(1) for x in s[st:e + 1] if OP.match(x)]
        if ops.count("MUFU.EX2") < 16: continue
        h = collections.Counter(o.split(".")[0] for o in ops)
        print(f"  loop@{st} n={len(ops)} " + " ".join(f"{k}={h.get(k,0)}" for k in keys if h.get(k,0))
              + f" U*={sum(v for k, v in h.items() if k.startswith('U'))}")
