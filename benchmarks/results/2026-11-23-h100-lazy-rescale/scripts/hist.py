"""Full opcode histogram of the shortest unmasked KV loop of a build (as loopstat.py), for two module versions."""
import sys, re, collections, importlib.util
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
def loop(mod, name):
    sass.gf = mod
    d, causal, cfg = cfgs[name]
    t = sass.sass(sass.build(d, "bf16", causal, cfg))
    s = t.splitlines(); best = None
    for e, l in enumerate(s):
        m = re.search(r"@!?P\d BRA `\(\.L_x_(\d+)\)", l)
        if not m: continue
        st = [i for i, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")][0]
        if st > e: continue
        lines = [x for x in s[st:e + 1]]
        ops = [OP.match(x).group(1) for x in lines if OP.match(x)]
        if ops.count("MUFU.EX2") < 16: continue
        if best is None or len(ops) < len(best[0]): best = (ops, lines)
    return best
spec = importlib.util.spec_from_file_location("flashcore.kernels.gf_base", ".scratch/lazy/gf_base.py")
base = importlib.util.module_from_spec(spec); sys.modules[spec.name] = base; spec.loader.exec_module(base)
for name in sys.argv[1:]:
    a, _ = loop(base, name); b, lines = loop(gf, name)
    open(f"/tmp/{name}.lazy.sass", "w").write("\n".join(lines))
    ha, hb = collections.Counter(a), collections.Counter(b)
    diff = {k: hb[k] - ha[k] for k in set(ha) | set(hb) if hb[k] != ha[k]}
    print(name, len(a), "->", len(b), dict(sorted(diff.items(), key=lambda x: -abs(x[1]))))
