"""Compile a gluon_fwd config offline (sm_90a, STANDARD_LAUNCH), dump SASS, show where STL/LDL are."""
import sys, subprocess, tempfile, dataclasses, re
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from flashcore.profile import resources as R
from flashcore.kernels import gluon_fwd as gf
BIN = "/work/main/.venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/"
d = int(sys.argv[1]); cfg = eval("gf." + sys.argv[2]); launch = None if len(sys.argv) > 3 and sys.argv[3] == "generic" else R.STANDARD_LAUNCH
captured = {}
orig = triton.compile
def grab(*a, **k):
    c = orig(*a, **k); captured["c"] = c; return c
triton.compile = grab
r = R.compile_gluon_fwd(d, "bf16", False, cfg, launch)
print("regs", r.registers, "spill", r.spill_bytes, "stack", r.stack_bytes, r.error)
c = captured["c"]
with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
    f.write(c.asm["cubin"]); f.flush()
    sass = subprocess.run([BIN + "nvdisasm", "-c", "-g", f.name], capture_output=True, text=True).stdout
lines = sass.splitlines()
open("/tmp/last.sass", "w").write(sass)
for i, l in enumerate(lines):
    if re.search(r"\b(STL|LDL)\b", l):
        print(i, l.strip()[:150])
