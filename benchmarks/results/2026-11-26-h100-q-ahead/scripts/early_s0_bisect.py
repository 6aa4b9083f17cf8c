"""Run 6 (debug): bisect early_s0's wrong rows (items whose unmasked loop runs no step and
whose masked loop runs one or more). Variants of gluon_fwd.py made by text edits, each
checked in its own process (a fault must not stop the others) at B2 H16 S2000 causal and
B1 H8 Sq1500 Sk700 causal:
  shipped:     as committed
  serial:      the next item's S_0 issued only after this item's last P @ V has landed
  o_live:      each item's O starts as the previous item's O times 0 (not a constant)
  one_loop:    one KV loop of masked steps for every tile (no unmasked loop)
    PYTHONPATH=$PWD/src python <this script>"""
import importlib.util
import os
import subprocess
import sys

import torch

OUT = os.environ.get("OUT", ".")
VARIANTS = ("shipped", "serial", "o_live", "one_loop")


def module_source(variant):
    from flashcore.kernels import gluon_fwd as gf
    src = open(gf.__file__).read()

    def rep(a, b):
        nonlocal src
        assert src.count(a) == 1, (variant, a)
        src = src.replace(a, b)

    if variant == "serial":
        rep("""        s_tok = _chain_s0(gl.where(more, lap + 1, lap), ring + n_tiles - 1 + more.to(gl.int32), q_smem, q_bars,
                          k_smem, k_ready, sched, WG, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL)
        v = _v_tile(v_smem, v_ready, ring + n_tiles - 1, BLOCK_N, HEAD_DIM, STAGES, 0)
        o_tok = warpgroup_mma(p, v, o, is_async=True)""", """        v = _v_tile(v_smem, v_ready, ring + n_tiles - 1, BLOCK_N, HEAD_DIM, STAGES, 0)
        o_tok = warpgroup_mma(p, v, o, is_async=True)
        o_tok, p = warpgroup_mma_wait(0, deps=[o_tok, p])
        s_tok = _chain_s0(gl.where(more, lap + 1, lap), ring + n_tiles - 1 + more.to(gl.int32), q_smem, q_bars,
                          k_smem, k_ready, sched, WG, WG_M, NUM_WG, BLOCK_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL)""")
        rep("""        o, p_last = warpgroup_mma_wait(0, deps=[o_tok, p_last])""", """        o = o_tok""")
        rep("""        s = warpgroup_mma_wait(1, deps=[s_tok])
        # (After""", """        s = warpgroup_mma_wait(0, deps=[s_tok])
        # (After""")
    elif variant == "o_live":
        rep("""    mbarrier.arrive(k_empty.index(0))
    while tile < total:""", """    mbarrier.arrive(k_empty.index(0))
    o = gl.zeros([WG_M, HEAD_DIM], gl.float32, o_layout)
    while tile < total:""")
        rep("""        o = gl.zeros([WG_M, HEAD_DIM], gl.float32, o_layout)
        p, o, m_i, l_i = _kv_loops(ring, ring,""", """        o = o * 0.0
        p, o, m_i, l_i = _kv_loops(ring, ring,""")
    elif variant == "one_loop":
        rep("""                                   v_empty, turns, desc_k, desc_v, off_b, off_hkv, n_tiles, n_full, offs_m, seq_k,
                                   causal_offset, qk_scale, WG_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, True, WG, NUM_WG,
                                   False, 0, 1, 0, LAZY, True)""", """                                   v_empty, turns, desc_k, desc_v, off_b, off_hkv, n_tiles, n_full * 0, offs_m,
                                   seq_k, causal_offset, qk_scale, WG_M, BLOCK_N, HEAD_DIM, STAGES, CAUSAL, True, WG,
                                   NUM_WG, False, 0, 1, 0, LAZY, True)""")
    return src


def check(variant):
    from flashcore.reference import attention_reference
    path = os.path.join(OUT, f"bisect_{variant}.py")
    open(path, "w").write(module_source(variant))
    spec = importlib.util.spec_from_file_location(f"flashcore.kernels.gluon_fwd_{variant}", path)
    mod = importlib.util.module_from_spec(spec)
    sys.modules[spec.name] = mod
    spec.loader.exec_module(mod)
    cfg = mod.Config(128, 128, 8, 2, True, persistent=True, q_ahead=True, early_s0=True)
    for b, h, sq, sk in ((2, 16, 2000, 2000), (1, 8, 1500, 700)):
        g = torch.Generator(device="cuda").manual_seed(0)
        q, k, v = (torch.randn(b, h, s, 128, device="cuda", dtype=torch.bfloat16, generator=g) for s in (sq, sk, sk))
        ref = attention_reference(q.double(), k.double(), v.double(), causal=True, scale=128 ** -0.5)
        out = mod.forward(q, k, v, True, 128 ** -0.5, cfg)[0]
        torch.cuda.synchronize()
        err = (out.double() - ref).abs().amax(-1)
        nb = sq // 64
        blocks = err[:, :, :nb * 64].reshape(b, h, nb, 64).amax(-1)
        bad = sorted({blk for blk in (blocks > 0.05).nonzero()[:, 2].tolist()})
        print(f"{variant}: B{b} H{h} Sq{sq} Sk{sk} max err {err.nan_to_num(9.0).max().item():.3g}, "
              f"bad 64-row blocks {bad}", flush=True)


if __name__ == "__main__":
    if len(sys.argv) > 1:
        check(sys.argv[1])
    else:
        for variant in VARIANTS:
            r = subprocess.run([sys.executable, __file__, variant], capture_output=True, text=True)
            lines = [ln for ln in (r.stdout + r.stderr).splitlines() if ln.startswith(variant) or "Error" in ln]
            print("\n".join(lines[-3:]) or f"{variant}: rc {r.returncode}", flush=True)
