"""Offline (no GPU): compile one Gluon forward config for sm_90a at the standard launch and
print its SASS size and loops (backward branches: start, end, instructions).
argv: head_dim, causal (0/1), Config expression (gf.Config(...) fields), [sass output path]."""
import re, subprocess, sys, tempfile
import triton
from flashcore.profile import resources as R
from flashcore.kernels import gluon_fwd as gf

NVDISASM = triton.__path__[0] + "/backends/nvidia/bin/nvdisasm"
d, causal, cfg = int(sys.argv[1]), sys.argv[2] == "1", eval("gf." + sys.argv[3])
captured = {}
orig = triton.compile
def grab(*a, **k):
    c = orig(*a, **k); captured["c"] = c; return c
triton.compile = grab
r = R.compile_gluon_fwd(d, "bf16", causal, cfg, R.STANDARD_LAUNCH)
with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
    f.write(captured["c"].asm["cubin"]); f.flush()
    sass = subprocess.run([NVDISASM, "-c", f.name], capture_output=True, text=True).stdout
if len(sys.argv) > 4:
    open(sys.argv[4], "w").write(sass)
ins = [(int(m.group(1), 16), m.group(2)) for m in re.finditer(r"/\*([0-9a-f]{4,})\*/\s+(.*?);", sass)]
print(f"regs {r.registers} spill {r.spill_bytes} instructions {len(ins)} ({len(ins) * 16 / 1024:.1f} KB)")
for addr, text in ins:
    m = re.search(r"BRA\s+(?:`\(\.L_x_\d+\)|)\s*0x([0-9a-f]+)", text) or re.search(r"BRA.*\(\.L_x_(\d+)\)", text)
    t = re.search(r"BRA[^`]*`\(([^)]*)\)", text)
    if "BRA" in text and t:
        pass
loops = []
labels = {m.group(1): int(m.group(2), 16) for m in re.finditer(r"\.(L_x_\d+):\s*\n\s*/\*([0-9a-f]+)\*/", sass)}
for addr, text in ins:
    t = re.search(r"BRA[^`]*`\((\.L_x_\d+)\)", text)
    if t and t.group(1)[1:] in labels and labels[t.group(1)[1:]] < addr:
        start = labels[t.group(1)[1:]]
        loops.append((start, addr, (addr - start) // 16 + 1))
for s, e, n in loops:
    if n >= 40:
        print(f"  loop {s:#07x}-{e:#07x}: {n} instructions")
