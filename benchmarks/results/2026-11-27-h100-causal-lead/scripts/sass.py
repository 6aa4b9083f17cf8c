"""Offline (CPU): a hash of the SASS (cuobjdump, addresses stripped) of the Gluon builds the GPU
ran this session, both launch forms, for comparing two trees. Run at c211da2 (a worktree) and at
the tree that restricted the lead to builds 64 / 128 (d4dc327): every line matched. At e9e648c
(calls 2-5) against d4dc327's successors: the causal 192-row builds matched, the full and the
128x128 builds differed by the store guard (kernel log v54). After the review tidy (the Q
load's clamp on the lead's builds only): the causal 192-row builds as d4dc327's, the full,
128x128 and D=32 builds as 8a2b19f's (before this session).
    PYTHONPATH=<tree>/src python <this script> LABEL"""
import hashlib, os, re, subprocess, sys, tempfile
import triton
from flashcore.kernels import gluon_fwd as gf
from flashcore.profile import resources
BIN = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin/cuobjdump")
out = []
for d, causal, S, bh in ((128, True, 4096, 64), (64, True, 8192, 64), (128, False, 8192, 32), (128, True, 1024, 256),
                         (32, True, 4096, 65536), (96, True, 8192, 32)):
    cfg = gf.heuristic_config(90, d, 2, causal, S, S, bh)
    for launch in (None, resources.STANDARD_LAUNCH):
        k = resources.compile_binary("gluon", 90, d, "bf16", causal, cfg, launch)
        with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
            f.write(k.asm["cubin"])
        sass = subprocess.run([BIN, "-sass", f.name], capture_output=True, text=True).stdout
        body = [re.sub(r"/\*[0-9a-f]{4,}\*/", "", l).strip() for l in sass.splitlines() if re.search(r"/\*[0-9a-f]{4,}\*/", l)]
        out.append(f"{d}{'c' if causal else 'f'}{S}{'L' if launch else ''}:{cfg.block_m}x{cfg.block_n}:{len(body)}:{hashlib.sha1(chr(10).join(body).encode()).hexdigest()[:8]}")
print(sys.argv[1]); print("\n".join(out))
