"""Compile p128 (and optionally ws192 d64) and report, per big loop, where the PV wait sits."""
import sys, re
sys.path.insert(0, ".scratch")
import sass
from flashcore.kernels import gluon_fwd as gf
cfgs = {"p128": (128, gf.Config(128, 128, 8, 2, True, persistent=True)),
        "np128": (128, gf.Config(128, 128, 8, 2, True)),
        "ws192": (64, gf.Config(192, 128, 12, 2, True, True)),
        "pp192": (64, gf.Config(192, 128, 12, 2, True, True, True)),
        "s1": (64, gf.Config(64, 128, 4, 2))}
for name in sys.argv[1:] or ["p128"]:
    d, cfg = cfgs[name]
    causal = name == "pp192"
    t = sass.sass(sass.build(d, "bf16", causal, cfg))
    open(f"/tmp/{name}.sass", "w").write(t)
    s = t.splitlines()
    for e, l in enumerate(s):
        m = re.search(r"@!?P\d BRA `\(\.L_x_(\d+)\)", l)
        if not m: continue
        st = [i for i, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")][0]
        if st > e or e - st < 150: continue
        body = s[st:e + 1]
        ops = []
        for x in body:
            mm = re.match(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)(.*)", x)
            if mm: ops.append((mm.group(1), mm.group(2)))
        idx = lambda pred: [i for i, (o, a) in enumerate(ops) if pred(o, a)]
        mufu = idx(lambda o, a: o == "MUFU.EX2")
        dep0 = idx(lambda o, a: o == "WARPGROUP.DEPBAR.LE" and "0x0" in a)
        dep1 = idx(lambda o, a: o == "WARPGROUP.DEPBAR.LE" and "0x1" in a)
        hg = idx(lambda o, a: o.startswith("HGMMA"))
        f2 = idx(lambda o, a: o.startswith("F2FP"))
        if not mufu: continue
        print(f"{name} loop {st}-{e}: n={len(ops)} hgmma={hg[:1]}..{hg[-1:]} wait1={dep1} wait0={dep0} "
              f"mufu={mufu[0]}..{mufu[-1]} ({len(mufu)}) f2fp={f2[:1]}..{f2[-1:]}")
