"""Hot KV loop of an ncu source-page CSV (SASS with per-instruction counts and stall samples):
opcode histogram per iteration and stall samples by reason."""
import csv, sys, re, collections
rows = list(csv.reader(open(sys.argv[1])))
hdr = rows[1]; data = rows[2:]
col = {h: i for i, h in enumerate(hdr)}
def num(r, h):
    try: return float(r[col[h]])
    except: return 0.0
ins = [(r[col["Address"]], r[col["Source"]].strip(), num(r, "Instructions Executed"), num(r, "Warp Stall Sampling (All Samples)"), r) for r in data]
top = max(x[2] for x in ins)
# the loop: instructions executed at least 50% of the max
hot = [x for x in ins if x[2] >= 0.5 * top]
tot_samples = sum(x[3] for x in ins)
print(sys.argv[1], "instructions", len(ins), "max exec", top, "hot instrs", len(hot), "samples total", tot_samples,
      "in hot", sum(x[3] for x in hot))
ops = collections.Counter()
for a, s, n, smp, r in hot:
    m = re.match(r"(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)", s)
    ops[m.group(1).split(".")[0] if m else s] += n / top
print(" per-iteration ops (hot, normalised to the max count):", round(sum(ops.values()), 1))
print("  ", ", ".join(f"{k}:{v:.0f}" for k, v in ops.most_common(40)))
stalls = collections.Counter()
for a, s, n, smp, r in hot:
    for h in hdr:
        if h.startswith("stall_") and "Not Issued" not in h:
            stalls[h] += num(r, h)
tot = sum(stalls.values())
print("  stalls in hot:", ", ".join(f"{k[6:]}:{v / tot:.1%}" for k, v in stalls.most_common(10)))
# top stalled instructions
print("  top instructions by samples:")
for a, s, n, smp, r in sorted(hot, key=lambda x: -x[3])[:25]:
    reasons = sorted(((num(r, h), h[6:]) for h in hdr if h.startswith("stall_") and "Not Issued" not in h), reverse=True)[:2]
    print(f"    {smp:6.0f}  {s[:70]:70s} {reasons}")
