"""Apply named experimental patches to the pristine kernel (.scratch/ov/pristine.py: src/flashcore/kernels/gluon_fwd.py at 5f667e2 for abo_pin/abo_rowred/abo_pp, at fe6abac for abo_early) into src."""
import sys
src = open(".scratch/ov/pristine.py").read()
PIN_FN = '''

@gluon.jit
def _pin(x, flag):
    """A store that never happens (flag < 0 never holds) of ``x``: ptxas must finish x first."""
    return gl.inline_asm_elementwise(
        "{ .reg .pred p; setp.lt.s32 p, $2, 0; @p st.shared.f32 [global_smem], $1; mov.b32 $0, 0; }",
        "=r,r,r", [x, flag], dtype=gl.int32, is_pure=False, pack=1)
'''
def rep(s, a, b, n=1):
    assert s.count(a) == n, (a, s.count(a))
    return s.replace(a, b)
def pin_sts(s):
    s = rep(s, "\n\n@gluon.jit\ndef _kv_step(", PIN_FN + "\n\n@gluon.jit\ndef _kv_step(")
    return rep(s, """    l_i = l_i * alpha + gl.sum(p_f32, 1)
    p_new = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
""", """    l_i = l_i * alpha + gl.sum(p_f32, 1)
    _pin(l_i, seq_k)
    p_new = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
""")
def cvt_after(s):
    return rep(s, """    p_new = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
    o, p = warpgroup_mma_wait(0, deps=[o_tok, p])
""", """    o, p = warpgroup_mma_wait(0, deps=[o_tok, p])
    p_new = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
""")
def rescale_early(s):
    for a, b in [
        ("def _kv_step(j, ring0, turn0, p, o, m_i, l_i, q2d,", "def _kv_step(j, ring0, turn0, p, o, m_i, l_i, alpha, q2d,"),
        ("""    s_tok = warpgroup_mma(q2d, k_t, s_zero, use_acc=False, is_async=True)
    v = _v_tile(""", """    s_tok = warpgroup_mma(q2d, k_t, s_zero, use_acc=False, is_async=True)
    o = _rescale(o, alpha, o_layout)
    v = _v_tile("""),
        ("""    o, p = warpgroup_mma_wait(0, deps=[o_tok, p])
    o = o * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
""", """    o, p = warpgroup_mma_wait(0, deps=[o_tok, p])
"""),
        ("""             BLOCK_N, STAGES, WS)
    return p_new, o, m_i, l_i
""", """             BLOCK_N, STAGES, WS)
    return p_new, o, m_i, l_i, alpha


@gluon.jit
def _rescale(o, alpha, o_layout: gl.constexpr):
    return o * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
"""),
        ("""    v = _v_tile(v_smem, v_bars, ring0 + n_tiles - 1, BLOCK_N, HEAD_DIM, STAGES)
    _wait_turn(turns, turn0 + n_tiles, WG, PINGPONG)
""", """    o = _rescale(o, alpha, o_layout)
    v = _v_tile(v_smem, v_bars, ring0 + n_tiles - 1, BLOCK_N, HEAD_DIM, STAGES)
    _wait_turn(turns, turn0 + n_tiles, WG, PINGPONG)
""")]:
        s = rep(s, a, b)
    return s.replace("p, o, m_i, l_i = _kv_step(j, ring0, turn0, p, o, m_i, l_i, q2d,",
                     "p, o, m_i, l_i, alpha = _kv_step(j, ring0, turn0, p, o, m_i, l_i, alpha, q2d,")


ROWRED = '''

@gluon.jit
def _row_reduce(x, MAX: gl.constexpr, CHAINS: gl.constexpr):
    """Row max or sum of an accumulator-layout tile in two chains per row and thread.

    Each thread holds BLOCK_N / 4 of a row's columns as pairs (c, c + 1) in groups of
    eight; reducing over the groups first gives two independent chains half as long as
    one reduction over the whole row, then one step and the quad shuffles finish it."""
    M: gl.constexpr = x.shape[0]
    N: gl.constexpr = x.shape[1]
    if CHAINS == 1:
        if MAX:
            r = gl.max(x, 1)
        else:
            r = gl.sum(x, 1)
        return r
    x4 = x.reshape([M, CHAINS, N // (8 * CHAINS), 8])
    if MAX:
        r = gl.max(gl.max(gl.max(x4, 2), 1), 1)
    else:
        r = gl.sum(gl.sum(gl.sum(x4, 2), 1), 1)
    return gl.convert_layout(r, gl.SliceLayout(1, x.type.layout))
'''
def rowred(s):
    s = rep(s, "\n\n@gluon.jit\ndef _softmax(", ROWRED + "\n\n@gluon.jit\ndef _softmax(")
    s = rep(s, "def _softmax(s, m_i, qk_scale, MASKED: gl.constexpr):", "def _softmax(s, m_i, qk_scale, MASKED: gl.constexpr, CHAINS: gl.constexpr):")
    s = rep(s, "    m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)", "    m_new = gl.maximum(m_i, _row_reduce(s, True, CHAINS) * qk_scale)")
    s = rep(s, "p_f32, alpha, m_i = _softmax(s, m_i, qk_scale, MASKED)", "p_f32, alpha, m_i = _softmax(s, m_i, qk_scale, MASKED, CHAINS)")
    s = rep(s, "p_f32, alpha, m_i = _softmax(s, m_i, qk_scale, True)", "p_f32, alpha, m_i = _softmax(s, m_i, qk_scale, True, CHAINS)")
    s = rep(s, "    l_i = l_i * alpha + gl.sum(p_f32, 1)\n", "    l_i = l_i * alpha + _row_reduce(p_f32, False, CHAINS)\n")
    s = rep(s, "    l_i = gl.sum(p_f32, 1)\n", "    l_i = _row_reduce(p_f32, False, CHAINS)\n")
    s = rep(s, "    SPLIT_MASK: gl.constexpr = _tight_registers(PERSISTENT, NUM_WG)\n",
            "    SPLIT_MASK: gl.constexpr = _tight_registers(PERSISTENT, NUM_WG)\n    CHAINS: gl.constexpr = _chains(PERSISTENT, NUM_WG)\n")
    s = rep(s, "STAGES, False, CAUSAL, WS, WG, NUM_WG, PINGPONG, SPLIT_MASK)", "STAGES, False, CAUSAL, WS, WG, NUM_WG, PINGPONG, SPLIT_MASK, CHAINS)")
    s = rep(s, "STAGES, True, CAUSAL, WS, WG, NUM_WG, PINGPONG, SPLIT_MASK)", "STAGES, True, CAUSAL, WS, WG, NUM_WG, PINGPONG, SPLIT_MASK, CHAINS)")
    s = rep(s, "WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr, SPLIT_MASK: gl.constexpr):",
            "WG: gl.constexpr, NUM_WG: gl.constexpr, PINGPONG: gl.constexpr, SPLIT_MASK: gl.constexpr,\n             CHAINS: gl.constexpr):")
    s = rep(s, "\n\n@gluon.jit\ndef _opaque(x):", """

@gluon.constexpr_function
def _chains(persistent, num_wg):
    return 1 if _tight_registers(persistent, num_wg) else 4


@gluon.jit
def _opaque(x):""")
    return s


ROWSCALE = '''

@gluon.jit
def _row_scale(s, m_i, qk_scale, MASKED: gl.constexpr):
    m_new = gl.maximum(m_i, gl.max(s, 1) * qk_scale)
    if MASKED:
        m_sub = gl.where(m_new == float("-inf"), 0.0, m_new)
    else:
        m_sub = m_new
    return m_sub, gl.exp2(m_i - m_sub), m_new
'''
def rescale_first(s):
    s = rep(s, "\n\n@gluon.jit\ndef _softmax(", ROWSCALE + "\n\n@gluon.jit\ndef _softmax(")
    return rep(s, """    p_f32, alpha, m_i = _softmax(s, m_i, qk_scale, MASKED)
    l_i = l_i * alpha + gl.sum(p_f32, 1)
    p_new = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
    o, p = warpgroup_mma_wait(0, deps=[o_tok, p])
    o = o * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
""", """    m_sub, alpha, m_i = _row_scale(s, m_i, qk_scale, MASKED)
    o, p = warpgroup_mma_wait(0, deps=[o_tok, p])
    o = o * gl.expand_dims(gl.convert_layout(alpha, gl.SliceLayout(1, o_layout)), 1)
    p_f32 = gl.exp2(s * qk_scale - gl.expand_dims(m_sub, 1))
    l_i = l_i * alpha + gl.sum(p_f32, 1)
    p_new = gl.convert_layout(_to_operand(p_f32, q2d.dtype), p_layout)
""")


PATCHES = {"rescale_first": rescale_first, "rowred": rowred, "pin_sts": pin_sts, "cvt_after": cvt_after, "rescale_early": rescale_early}
for name in sys.argv[1:]:
    src = PATCHES[name](src)
open("src/flashcore/kernels/gluon_fwd.py", "w").write(src)
