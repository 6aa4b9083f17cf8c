import json, os, sys, time
import torch, triton
from flashcore.kernels import hopper_fwd as hf, triton_fwd as tf
from flashcore.bench.correctness import judge, make_inputs
from flashcore.bench.cases import Case
from torch.nn.attention import sdpa_kernel, SDPBackend
out_dir = os.environ.get("OUT", "/tmp")
def tflops(c, ms):
    pairs = c.seq_q * c.sk if not c.causal else (2*c.sk - c.seq_q + 1) * c.seq_q / 2
    return 4 * c.batch * c.heads_q * pairs * c.head_dim / (ms * 1e-3) / 1e12
def bench(fn):
    return triton.testing.do_bench(fn, warmup=25, rep=150, return_mode="median")
H = hf.Config
cands = {128: [H(128,128,8,2), H(128,128,8,3), H(128,64,8,3), H(128,64,8,4), H(128,128,8,2,True), H(128,64,8,2,True), H(128,128,4,2,True), H(128,64,4,2,True), H(64,128,4,2), H(128,128,4,2)],
         64: [H(128,64,4,3), H(128,128,8,2), H(128,128,8,3), H(128,64,8,3), H(128,128,4,3), H(128,128,8,2,True), H(128,64,4,2,True), H(128,128,4,2,True), H(64,128,4,3), H(128,64,4,4)]}
shapes = [Case(2, 16, 8192, 128, causal=c) for c in (False, True)] + [Case(2, 32, 8192, 64, causal=c) for c in (False, True)] + [Case(16, 16, 1024, 128, causal=True)]
rows = []
for c in shapes:
    q, k, v = make_inputs(c, "cuda", seed=2)
    sc = c.head_dim ** -0.5
    base = {}
    with sdpa_kernel([SDPBackend.CUDNN_ATTENTION]):
        base["cudnn"] = bench(lambda: torch.nn.functional.scaled_dot_product_attention(q, k, v, is_causal=c.causal))
    tcfg = tf.heuristic_config(90, c.head_dim, 2, c.causal, c.seq_q, c.sk, c.batch*c.heads_q)
    base["portable"] = bench(lambda: tf.forward(q, k, v, c.causal, sc, tcfg))
    print(f"{c.label()} cudnn {base['cudnn']*1e3:.0f}us ({tflops(c,base['cudnn']):.0f} TF) portable {base['portable']*1e3:.0f}us ({tflops(c,base['portable']):.0f} TF)", flush=True)
    for cfg in cands[c.head_dim]:
        if hf.constraints(cfg, c.head_dim):
            continue
        try:
            t0 = time.time()
            oks = []
            for seed, mag in ((5, 1.0), (6, 10.0)):
                qq, kk, vv = make_inputs(c, "cuda", seed=seed, magnitude=mag)
                o, l = hf.forward(qq, kk, vv, c.causal, sc, cfg, out=torch.full_like(qq, float("nan")))
                oks.append(judge(o, qq, kk, vv, causal=c.causal, lse=l, ref_dtype=torch.float32))
            ok = all(x.ok for x in oks)
            ms = bench(lambda: hf.forward(q, k, v, c.causal, sc, cfg))
            err = "" if ok else "; ".join(x.reason for x in oks)
        except Exception as e:
            ok, ms, err = False, float("nan"), f"{type(e).__name__}: {str(e)[:160]}"
        rows.append(dict(case=c.label(), config=cfg.as_dict(), ok=ok, ms=ms, tflops=tflops(c, ms) if ms == ms else 0, err=err, **base))
        print(f"   {str(cfg):95s} {'OK ' if ok else 'BAD'} {ms*1e3:8.0f}us {tflops(c,ms) if ms==ms else 0:5.0f} TF {err}", flush=True)
json.dump(rows, open(f"{out_dir}/hopper_sweep.json", "w"), indent=1)
