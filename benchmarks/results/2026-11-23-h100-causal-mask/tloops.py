"""Masked/unmasked KV loops of the portable Triton kernel (offline compile): instruction counts."""
import sys, re, collections, subprocess, tempfile, os
import triton
from flashcore.kernels import triton_fwd as tf
from flashcore.profile import resources
BIN = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin")
OP = re.compile(r"\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)(.*)")
got = []
real = triton.compile
triton.compile = lambda *a, **k: got.append(real(*a, **k)) or got[-1]
for arch, d in ((80, 64), (80, 128), (89, 64), (89, 128), (90, 64), (90, 128)):
    cfg = tf.heuristic_config(arch, d, 2, True, 4096, 4096)
    got.clear()
    r = resources.compile_triton_fwd(arch, d, "bf16", True, cfg, resources.STANDARD_LAUNCH)
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(got[0].asm["cubin"]); p = f.name
    s = subprocess.run([f"{BIN}/nvdisasm", "-c", p], capture_output=True, text=True).stdout.splitlines()
    loops = []
    for e, l in enumerate(s):
        m = re.search(r"BRA `\(\.L_x_(\d+)\)", l)
        if not m: continue
        st = [i for i, x in enumerate(s) if x.startswith(f".L_x_{m.group(1)}:")]
        if not st or st[0] > e: continue
        ops = [OP.match(x).group(1) for x in s[st[0]:e + 1] if OP.match(x)]
        if ops.count("MUFU.EX2") < 8: continue
        h = collections.Counter(o.split(".")[0] for o in ops)
        loops.append(f"n={len(ops)} FSEL={h['FSEL']} ISETP={h['ISETP']} LOP3={h['LOP3']} SEL={h['SEL']}")
    print(f"sm_{arch} D={d} {cfg.block_m}x{cfg.block_n} w{cfg.num_warps} s{cfg.num_stages} regs={r.registers} spill={r.spill_bytes} | " + " | ".join(loops), flush=True)
