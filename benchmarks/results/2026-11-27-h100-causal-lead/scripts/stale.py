"""Offline (CPU, sm_90a through resources.compile_gluon_fwd): does replacing a gluon_fwd helper
after import change the binary Triton builds? MODE tree: the tree; patched: _causal_lead replaced
after import (as v52 turns.py / v53 cost.py replaced _pass_turn); reset: replaced, then every Gluon
function's cache key unset (copies.py). Run tree, patched, reset in turn on one TRITON_CACHE_DIR;
prints the PTX hash. Output this session: tree 33597bda56b4, patched 33597bda56b4 (the tree's
binary from the cache), reset dba2a850110a.
    PYTHONPATH=$PWD/src TRITON_CACHE_DIR=/tmp/x python <this script> MODE"""
import hashlib
import sys

import triton
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.runtime.jit import JITCallable
from flashcore.kernels import gluon_fwd as gf
from flashcore.profile import resources


@gluon.jit
def _no_lead(seq_q, n_m, BLOCK_M: gl.constexpr):
    return seq_q * 0


mode = sys.argv[1]
if mode != "tree":
    gf._causal_lead = _no_lead
if mode == "reset":
    for fn in vars(gf).values():
        if isinstance(fn, JITCallable):
            fn.hash = None
cfg = gf.heuristic_config(90, 128, 2, True, 4096, 4096, 64)
seen = {}
orig = triton.compile
def spy(src, *a, **k):
    out = orig(src, *a, **k)
    seen['ptx'] = hashlib.sha1(out.asm['ptx'].encode()).hexdigest()[:12]
    return out


triton.compile = spy
r = resources.compile_gluon_fwd(128, 'bf16', True, cfg, None)
print(mode, r.registers, gf._gluon_fwd_ws_kernel.cache_key[:12], seen)
