import sys, re
OP = re.compile(r"\s+/\*[0-9a-f]+\*/\s+((?:@!?U?P\w+\s+)?[A-Z0-9_]+(?:\.[A-Z0-9_]+)*)(.*)")
s = open(sys.argv[1]).read().splitlines()
best = None
for e, l in enumerate(s):
    m = re.search(r"@!?P\d BRA `\(\.L_x_(\d+)\)", l)
    if not m: continue
    st = [i for i, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")][0]
    if st > e: continue
    body = [OP.match(x) for x in s[st:e + 1]]
    body = [b.group(1) + b.group(2) for b in body if b]
    if sum("MUFU.EX2" in x for x in body) < 16: continue
    if best is None or len(body) < len(best): best = body
for i, x in enumerate(best): print(i, x[:100])
