"""Opcode-sequence hash of every shipped Gluon build (+ stream-K variants), both launches."""
import sys, subprocess, tempfile, dataclasses, re, hashlib, json
import triton
from flashcore.profile import offline, resources as R
from flashcore.kernels import gluon_fwd as gf
BIN = "/work/main/.venv/lib/python3.11/site-packages/triton/backends/nvidia/bin/"
captured = {}
orig = triton.compile
def grab(*a, **k):
    c = orig(*a, **k); captured["c"] = c; return c
triton.compile = grab
tasks = [t for t in offline.plan(archs=(90,)) if t.family == "gluon"]
extra = []
for t in tasks:
    if t.config.persistent and not t.causal and t.config.warp_specialize:
        extra.append(dataclasses.replace(t, config=dataclasses.replace(t.config, stream_k=True)))
out = {}
for t in tasks + extra:
    for launch in (None, R.STANDARD_LAUNCH):
        r = R.compile_gluon_fwd(t.head_dim, t.dtype, t.causal, t.config, launch)
        with tempfile.NamedTemporaryFile(suffix=".cubin") as f:
            f.write(captured["c"].asm["cubin"]); f.flush()
            sass = subprocess.run([BIN + "nvdisasm", "-c", f.name], capture_output=True, text=True).stdout
        ops = [m.group(1) for m in re.finditer(r"/\*[0-9a-f]{4,}\*/\s+(?:@!?U?P\w+\s+)?([A-Z][A-Z0-9_.]*)", sass)]
        key = f"D{t.head_dim} {'C' if t.causal else 'F'} {t.config.block_m}x{t.config.block_n} w{t.config.num_warps} s{t.config.num_stages} ws{int(t.config.warp_specialize)} pp{int(t.config.pingpong)} p{int(t.config.persistent)} sk{int(t.config.split_kv)} kc{t.config.kv_ctas} lz{int(t.config.lazy_rescale)} SK{int(t.config.stream_k)} {'gen' if launch is None else 'std'}"
        out[key] = f"{len(ops)}:{hashlib.md5(' '.join(ops).encode()).hexdigest()[:8]} r{r.registers} sp{r.spill_bytes}"
        print(f"{key:80s} {out[key]}", flush=True)
json.dump(out, open(sys.argv[1], "w"), indent=1)
