import csv, sys, re
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; col = {h: i for i, h in enumerate(hdr)}
data = rows[2:]
ex = lambda r: float(r[col["Instructions Executed"]] or 0)
top = max(ex(r) for r in data)
hot = [r for r in data if ex(r) >= 0.5 * top]
seq = []
for i, r in enumerate(hot):
    s = r[col["Source"]].strip()
    m = re.match(r"(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)(.*)", s)
    op = m.group(1)
    key = op.split(".")[0]
    if key in ("HGMMA", "WARPGROUP", "MUFU", "F2FP", "BAR", "SYNCS", "SHFL", "BRA", "FMUL", "NANOSLEEP"):
        tag = op if key in ("WARPGROUP", "SYNCS", "BAR") else key
        if key == "WARPGROUP" and "DEPBAR" in op: tag += m.group(2).split(",")[-1].strip(" ;")
        seq.append(tag)
out = []; prev = None; n = 0
for t in seq:
    if t == prev: n += 1
    else:
        if prev: out.append(f"{prev}x{n}" if n > 1 else prev)
        prev, n = t, 1
out.append(f"{prev}x{n}" if n > 1 else prev)
print(" | ".join(out))
