import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource

@gluon.jit
def _wait():
    gl.inline_asm_elementwise("griddepcontrol.wait; // $0", "=r", [], dtype=gl.int32, is_pure=False, pack=1)

@gluon.jit
def _trigger():
    gl.inline_asm_elementwise("griddepcontrol.launch_dependents; // $0", "=r", [], dtype=gl.int32, is_pure=False, pack=1)

@gluon.jit
def k(X, num_warps: gl.constexpr):
    _wait()
    _trigger()
    layout: gl.constexpr = gl.BlockedLayout([1], [32], [num_warps], [0])
    offs = gl.arange(0, 128, layout)
    gl.store(X + offs, gl.load(X + offs) + 1.0)

src = GluonASTSource(k, {"X": "*fp32", "num_warps": "constexpr"}, constexprs={(1,): 4})
c = triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=4, launch_pdl=True))
ptx = c.asm["ptx"]
print([l for l in ptx.splitlines() if "griddep" in l])
print("launch_pdl", c.metadata.launch_pdl)
