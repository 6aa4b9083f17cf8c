"""Longest dependency chain (in instructions) of FMNMX / FADD within the first big loop of /tmp/p128.sass."""
import re, sys
name = sys.argv[1] if len(sys.argv) > 1 else "p128"
s = open(f"/tmp/{name}.sass").read().splitlines()
st, e = map(int, sys.argv[2].split("-")) if len(sys.argv) > 2 else (None, None)
if st is None:
    for i, l in enumerate(s):
        m = re.search(r"@!?P\d BRA `\(\.L_x_(\d+)\)", l)
        if m:
            a = [k for k, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")][0]
            if a < i and i - a > 150:
                st, e = a, i; break
for op in ("FMNMX", "FADD"):
    depth = {}
    best = 0
    for l in s[st:e]:
        m = re.match(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_.]+)\s+(.*);", l)
        if not m: continue
        o, args = m.group(1), m.group(2)
        regs = re.findall(r"\bR(\d+)\b", args)
        if not regs: continue
        dst, srcs = regs[0], regs[1:]
        if o.startswith(op) or o.startswith("SHFL"):
            d = 1 + max([depth.get(r, 0) for r in srcs] + [0])
            depth[dst] = d
            best = max(best, d)
        else:
            depth.pop(dst, None)
    print(op, "longest chain", best)
