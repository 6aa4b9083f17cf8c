"""Offline (no GPU): how Gluon 3.6 lowers an mbarrier arrive in a warp-specialised partition,
and which partition sizes it takes. Run with the repository's venv: python <this script>.
Found (session 62): a 4- / 8-warp default partition arrives from thread 0 of the partition
(tid & 127 / tid & 255 == 0) behind bar.sync 0, 128 / 256; a 12-warp partition is refused
("number of warps (12) must be a power of 2"), and the default partition's num_warps too."""
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental import gluon
from triton.experimental.gluon import language as gl
from triton.experimental.gluon.language.nvidia.hopper import mbarrier


@gluon.jit
def _waiter(bar):
    mbarrier.wait(bar.index(0), 0)


@gluon.jit
def _arriver(bar):
    mbarrier.arrive(bar.index(0))


@gluon.jit
def default_arrives(x):
    bar = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    mbarrier.init(bar.index(0), count=1)
    gl.warp_specialize([(_arriver, (bar,)), (_waiter, (bar,))], [1], [24])


@gluon.jit
def twelve_warp_worker(x):
    bar = gl.allocate_shared_memory(gl.int64, [1, 1], mbarrier.MBarrierLayout())
    mbarrier.init(bar.index(0), count=1)
    gl.warp_specialize([(_waiter, (bar,)), (_arriver, (bar,))], [12], [160])


def compile_ptx(kernel, num_warps):
    src = gluon._runtime.GluonASTSource(kernel, signature={"x": "*fp32"}, constexprs={})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options={"num_warps": num_warps}).asm["ptx"]


if __name__ == "__main__":
    for num_warps in (4, 8):
        ptx = compile_ptx(default_arrives, num_warps)
        print(num_warps, [line.strip() for line in ptx.split("\n")
                          if "mbarrier.arrive" in line or "and.b32" in line or "setp.eq" in line or "bar.sync" in line])
    try:
        compile_ptx(twelve_warp_worker, 4)
    except Exception as exc:  # noqa: BLE001 - the refusal is the finding
        print("12-warp partition:", str(exc).strip().splitlines()[0][:200])
