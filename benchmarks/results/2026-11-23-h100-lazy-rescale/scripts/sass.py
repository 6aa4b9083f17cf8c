import sys, os, re, subprocess, collections, tempfile
import triton
from triton.backends.compiler import GPUTarget
from triton.experimental.gluon import language as gl
from triton.experimental.gluon._runtime import GluonASTSource
from flashcore.kernels import gluon_fwd as gf
BIN = os.path.join(os.path.dirname(triton.__file__), "backends/nvidia/bin")
def build(d, dtype, causal, config):
    ws = config.warp_specialize
    fn = gf.kernel_fn(config)
    nw = 4 if ws else config.num_warps
    cx = dict(gf.kernel_constexprs(config, d, causal), num_warps=nw)
    g = {"fp16": gl.float16, "bf16": gl.bfloat16}[dtype]
    def desc(rows):
        block = [1, 1, rows, d]
        return f"tensordesc<{dtype}[{','.join(map(str, block))}],{gl.NVMMASharedLayout.get_default_for(block, g)!r}>"
    qr = gf.WG_ROWS if ws else config.block_m
    types = {"desc_q": desc(qr), "desc_o": desc(qr), "desc_k": desc(config.block_n), "desc_v": desc(config.block_n),
             "LSE": "*fp32", "PARTS": "*fp32", "TICKETS": "*i32", "qk_scale": "fp32", "counter": "*i32" if gf.dynamic_schedule(config, causal) else "*fp32"}
    sig = {n: "constexpr" if n in cx else types.get(n, "i32") for n in fn.arg_names}
    idx = {n: i for i, n in enumerate(fn.arg_names)}
    src = GluonASTSource(fn, sig, constexprs={(idx[k],): v for k, v in cx.items()}, attrs={(idx["LSE"],): [["tt.divisibility", 16]]})
    return triton.compile(src, target=GPUTarget("cuda", 90, 32), options=dict(num_warps=nw, num_stages=config.num_stages))
def sass(c):
    with tempfile.NamedTemporaryFile(suffix=".cubin", delete=False) as f:
        f.write(c.asm["cubin"]); p = f.name
    return subprocess.run([f"{BIN}/nvdisasm", "-c", p], capture_output=True, text=True).stdout
if __name__ == "__main__":
    C = gf.Config
    cfgs = {"s1_64": (64, C(64,128,4,2)), "ws192_64": (64, C(192,128,12,2,True,True)), "p128": (128, C(128,128,8,2,True,persistent=True))}
    name = sys.argv[1]; d, cfg = cfgs[name]
    c = build(d, "bf16", False, cfg)
    s = sass(c)
    open(f"/tmp/{name}.sass", "w").write(s)
    ops = collections.Counter(re.findall(r"^\s+/\*[0-9a-f]+\*/\s+(?:@!?U?P\w+\s+)?([A-Z0-9_]+(?:\.[A-Z0-9_]+)*)", s, re.M))
    for k, v in ops.most_common(40): print(f"{v:6d} {k}")

def ptx(name):
    C = gf.Config
    cfgs = {"s1_64": (64, C(64,128,4,2)), "ws192_64": (64, C(192,128,12,2,True,True)), "p128": (128, C(128,128,8,2,True,persistent=True))}
    d, cfg = cfgs[name]
    return build(d, "bf16", False, cfg).asm["ptx"]
