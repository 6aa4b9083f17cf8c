"""The CuTe DSL cluster-split forward: its shared-memory plan on the CPU, its absence without
the optional extra, and (gpu tier, with the extra) its output against the reference."""
import dataclasses

import pytest
import torch

from flashcore.bench.correctness import judge
from flashcore.kernels import cute_fwd as cf

HAS_SM90 = torch.cuda.is_available() and torch.cuda.get_device_capability() == (9, 0)


@pytest.mark.parametrize("seq_k", [1, 7, 128, 257, 512, 700, 1000, 2048])
@pytest.mark.parametrize("head_dim", [64, 128])
def test_config_covers_every_key_tile_within_shared_memory(seq_k, head_dim):
    config = cf.config_for(seq_k, head_dim)
    if config is None:  # no split holds its tiles: the caller takes another kernel
        assert cf.smem_bytes(head_dim, cf.Config(128, cf.MAX_SPLIT, -(-seq_k // (128 * cf.MAX_SPLIT)))) > cf.SMEM_BYTES
        return
    assert cf.smem_bytes(head_dim, config) <= cf.SMEM_BYTES
    assert 1 <= config.split <= cf.MAX_SPLIT
    assert (config.split - 1) * config.tiles * 128 < seq_k <= config.split * config.tiles * 128


def test_shared_memory_counts_the_partials_of_every_other_rank():
    one, two = cf.Config(128, 1, 2), cf.Config(128, 2, 2)
    assert cf.smem_bytes(64, two) == cf.smem_bytes(64, one)  # one slot either way
    four = cf.Config(128, 4, 2)
    assert cf.smem_bytes(64, four) - cf.smem_bytes(64, two) == 2 * cf.THREADS * (64 // 2 + 4) * 4


def test_own_rows_takes_two_query_blocks_per_cta_and_half_the_keys():
    own = cf.Config(128, 2, 2, wgs=2, halves=True, own_rows=True)
    assert cf.constraints(own, 64, 512) is None
    # Two Q tiles and one exchange slot per warpgroup, against one Q tile and three partials.
    words = cf.THREADS * (64 // 2 + 4) * 4
    shared = cf.Config(128, 2, 2, wgs=2)
    assert cf.smem_bytes(64, own) - cf.smem_bytes(64, shared) == 64 * 64 * 2 - words
    for bad, why in [(dict(halves=False), "own_rows needs halves"), (dict(wgs=1), "own_rows needs"),
                     (dict(interleave=True), "own_rows needs"), (dict(split=1), "halves needs split 2")]:
        assert why in cf.constraints(dataclasses.replace(own, **bad), 64, 256)
    assert "halves needs" in cf.constraints(dataclasses.replace(own, tiles=1), 128, 256)
    assert "no own_rows" in cf.constraints(cf.Config(128, 1, 1, stages=2, own_rows=True), 64, 4096)


def test_the_seed_splits_its_keys_across_a_cluster():
    assert cf.config_for(512, 64) == cf.Config(block_n=128, split=2, tiles=2)


def test_rows_past_a_clusters_shared_memory_take_the_ring():
    assert cf.config_for(4096, 128) is None
    for d in cf.HEAD_DIMS:
        ring = cf.heuristic_config(90, d, 2, True, 8192, 8192, 64)
        assert ring == cf.RINGS[d] and ring.stages >= 2
        assert cf.constraints(ring, d, 8192) is None


def test_a_config_that_misses_keys_is_a_clear_error():
    q = torch.randn(1, 1, 1, 128)
    k = torch.randn(1, 1, 4096, 128)
    with pytest.raises(ValueError, match="4096 keys.*do not cover"):
        cf.forward(q, k, k, False, 1.0, cf.Config(128, 2, 1))


def test_without_the_extra_the_module_still_imports():
    assert cf.AVAILABLE == (cf.MISSING is None)
    if not cf.AVAILABLE:
        assert isinstance(cf.MISSING, ImportError)


CASES = [  # (B, Hq, Hkv, Sq, Sk, D, causal, dtype)
    (1, 8, 8, 512, 512, 64, False, torch.float16), (2, 8, 8, 512, 512, 64, True, torch.float16),
    (1, 8, 8, 257, 257, 64, True, torch.bfloat16), (1, 4, 4, 1, 512, 64, False, torch.float16),
    (2, 8, 2, 300, 384, 128, True, torch.bfloat16), (1, 8, 8, 700, 300, 64, True, torch.float16),
    (1, 16, 16, 256, 400, 64, False, torch.float16), (2, 8, 2, 500, 512, 64, False, torch.bfloat16),
]


@pytest.mark.gpu
@pytest.mark.skipif(not (HAS_SM90 and cf.AVAILABLE), reason="gpu tier: needs an sm_90 GPU and flashcore[hopper]")
@pytest.mark.parametrize("b,h,hk,sq,sk,d,causal,dtype", CASES)
def test_matches_the_reference(b, h, hk, sq, sk, d, causal, dtype):
    g = torch.Generator(device="cuda").manual_seed(sq * 7 + sk)
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    out = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    cf.forward(q, k, v, causal, d ** -0.5, out=out, lse=lse)
    assert judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse).ok


KNOBS = [cf.Config(128, 2, 2, wgs=2, exclusive=True), cf.Config(128, 1, 4, wgs=2, interleave=True),
         cf.Config(128, 2, 2, halves=True), cf.Config(128, 2, 2, exclusive=True, halves=True),
         cf.Config(128, 2, 2, wgs=2, halves=True, own_rows=True),
         cf.Config(128, 2, 2, wgs=2, exclusive=True, halves=True, own_rows=True),
         cf.Config(128, 1, 4, wgs=4), cf.Config(64, 1, 8, wgs=4, interleave=True),
         cf.Config(128, 1, 4, wgs=2, interleave=True, keys_first=True), cf.Config(128, 2, 2, keys_first=True),
         cf.Config(128, 1, 4, wgs=4, keys_first=True)]


@pytest.mark.gpu
@pytest.mark.skipif(not (HAS_SM90 and cf.AVAILABLE), reason="gpu tier: needs an sm_90 GPU and flashcore[hopper]")
@pytest.mark.parametrize("config", KNOBS, ids=str)
@pytest.mark.parametrize("b,h,hk,sq,sk,d,causal,dtype", CASES)
def test_merge_and_load_order_knobs_match_the_reference(config, b, h, hk, sq, sk, d, causal, dtype):
    """Two warpgroups per rank in a split cluster (two bulk copies into rank 0), round-robin
    loads, each rank storing half the rows, and two query blocks per CTA (a warpgroup each,
    exchanging halves; odd block counts leave the last CTA's second block past Sq), on every
    case whose keys the config covers."""
    if cf.constraints(config, d, sk):
        pytest.skip(cf.constraints(config, d, sk))
    g = torch.Generator(device="cuda").manual_seed(sq * 5 + sk)
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    out = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    cf.forward(q, k, v, causal, d ** -0.5, config, out, lse)
    assert judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse).ok


RINGS = [cf.Config(64, 1, 1, stages=2), cf.Config(32, 1, 1, stages=3), cf.Config(128, 1, 1, stages=2),
         cf.Config(32, 1, 1, stages=2, loader_warp=False), cf.Config(64, 1, 1, stages=3, loader_warp=False),
         cf.Config(128, 1, 1, wgs=2, stages=2), cf.Config(64, 1, 1, wgs=3, stages=3),
         cf.Config(128, 1, 1, wgs=2, stages=3, lazy=True, turns=True), cf.Config(96, 1, 1, wgs=3, stages=3, turns=True),
         cf.Config(64, 1, 1, stages=2, lazy=True),
         cf.Config(128, 1, 1, wgs=2, stages=2, persistent=True, pinned=True),
         cf.Config(96, 1, 1, wgs=3, stages=2, lazy=True, turns=True, persistent=True, pinned=True),
         cf.Config(128, 1, 1, wgs=3, stages=2, lazy=True, turns=True, pinned=True),
         cf.Config(128, 1, 1, wgs=3, stages=2, lazy=True, turns=True, pinned=True, straight=True),
         cf.Config(64, 1, 1, stages=3, straight=True),
         cf.Config(128, 1, 1, wgs=2, stages=2, lazy=True, pinned=True, straight=True, early=True),
         *sorted(set(cf.RINGS.values()), key=str)]
# Past one cluster's shared memory (1000-2048 keys), and rows that see no key (causal, Sq > Sk).
LONG_CASES = [(1, 4, 4, 1000, 1000, 128, True, torch.bfloat16), (2, 4, 2, 130, 2048, 64, False, torch.float16),
              (1, 4, 4, 900, 600, 128, True, torch.float16), (3, 2, 2, 1, 1000, 64, True, torch.bfloat16),
              # More query blocks than SMs: a persistent CTA walks several.
              (4, 8, 8, 1024, 1024, 64, False, torch.bfloat16), (2, 16, 4, 777, 1500, 128, True, torch.float16)]


@pytest.mark.gpu
@pytest.mark.skipif(not (HAS_SM90 and cf.AVAILABLE), reason="gpu tier: needs an sm_90 GPU and flashcore[hopper]")
@pytest.mark.parametrize("config", RINGS, ids=str)
@pytest.mark.parametrize("b,h,hk,sq,sk,d,causal,dtype", CASES + LONG_CASES)
def test_a_ring_matches_the_reference(config, b, h, hk, sq, sk, d, causal, dtype):
    """A ring of K/V slots: any row length, the slots reused in order."""
    if cf.constraints(config, d, sk):
        pytest.skip(cf.constraints(config, d, sk))
    g = torch.Generator(device="cuda").manual_seed(sq * 11 + sk)
    q = torch.randn(b, h, sq, d, device="cuda", dtype=dtype, generator=g)
    k, v = (torch.randn(b, hk, sk, d, device="cuda", dtype=dtype, generator=g) for _ in range(2))
    out = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    cf.forward(q, k, v, causal, d ** -0.5, config, out, lse)
    assert judge(out, q, k, v, causal=causal, scale=d ** -0.5, lse=lse).ok


@pytest.mark.gpu
@pytest.mark.skipif(not (HAS_SM90 and cf.AVAILABLE), reason="gpu tier: needs an sm_90 GPU and flashcore[hopper]")
@pytest.mark.parametrize("causal", [False, True])
def test_rows_past_a_cluster_run_the_ring_by_default(causal):
    """backend="cute" on keys no split holds (4096 at D=128): the heuristic's ring, through a plan."""
    import flashcore

    g = torch.Generator(device="cuda").manual_seed(3)
    q = torch.randn(1, 4, 700, 128, device="cuda", dtype=torch.bfloat16, generator=g)
    k, v = (torch.randn(1, 4, 4096, 128, device="cuda", dtype=torch.bfloat16, generator=g) for _ in range(2))
    out, lse = flashcore.attention(q, k, v, causal=causal, backend="cute", return_lse=True)
    assert judge(out, q, k, v, causal=causal, lse=lse).ok


@pytest.mark.gpu
@pytest.mark.skipif(not (HAS_SM90 and cf.AVAILABLE), reason="gpu tier: needs an sm_90 GPU and flashcore[hopper]")
@pytest.mark.parametrize("batch,layout,causal", [(1, "bhsd", False), (1, "bshd", False), (1, "bhsd", True),
                                                 (2, "bshd", False), (2, "bhsd", True)])
def test_auto_runs_the_cute_kernel_at_the_seed(batch, layout, causal):
    """Dispatch, then a plan's launch with fresh inputs, with and without the LSE."""
    import flashcore
    from flashcore import dispatch, plans

    plans.clear()
    for seed in (1, 2):
        g = torch.Generator(device="cuda").manual_seed(seed)
        shape = (batch, 8, 512, 64) if layout == "bhsd" else (batch, 512, 8, 64)
        q, k, v = (torch.randn(*shape, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
        if layout == "bshd":
            q, k, v = (t.transpose(1, 2) for t in (q, k, v))
        assert dispatch.kernel_for("auto", q, k, v, causal) == "cute"
        out = flashcore.attention(q, k, v, causal=causal)
        assert judge(out, q, k, v, causal=causal).ok
        out, lse = flashcore.attention(q, k, v, causal=causal, return_lse=True)
        assert judge(out, q, k, v, causal=causal, lse=lse).ok


def test_supports_names_what_is_missing():
    q = torch.randn(1, 8, 512, 64, dtype=torch.float16)
    reason = cf.supports(q, q, q, 90)
    assert reason is not None
    assert ("flashcore[hopper]" in reason) if not cf.AVAILABLE else ("sm_90" in reason)


def test_a_ring_holds_its_slots_not_its_keys():
    ring = cf.Config(64, 1, 1, stages=2)
    assert cf.constraints(ring, 128, 1 << 17) is None  # any row length
    assert cf.smem_bytes(128, ring) == (64 + 2 * 2 * 64) * 128 * 2 + 16 + 1024
    assert cf.smem_bytes(128, cf.Config(64, 1, 1, stages=3)) - cf.smem_bytes(128, ring) == 2 * 64 * 128 * 2


def test_the_default_rings_lie_in_the_tuners_space():
    for ring in cf.RINGS.values():
        for knob, values in cf.SEARCH_SPACE.items():
            assert getattr(ring, knob) in values, (ring, knob)


def test_a_ring_of_several_warpgroups_holds_a_q_tile_for_each():
    one, three = cf.Config(64, 1, 1, stages=3), cf.Config(64, 1, 1, wgs=3, stages=3)
    assert cf.smem_bytes(64, three) - cf.smem_bytes(64, one) == 2 * 64 * 64 * 2
    assert cf.constraints(three, 64, 1 << 17) is None
    # 128 x 128 tiles at D=128 with three slots still fit sm_90's 227 KB; four do not.
    assert cf.constraints(cf.Config(128, 1, 1, wgs=2, stages=3), 128, 8192) is None
    assert "shared memory" in cf.constraints(cf.Config(128, 1, 1, wgs=2, stages=4), 128, 8192)


@pytest.mark.parametrize("config,problem", [
    (cf.Config(128, 2, 1, stages=2), "split 1"), (cf.Config(64, 1, 1, wgs=4, stages=2), "1-3 consumer"),
    (cf.Config(64, 1, 1, wgs=2, stages=2, loader_warp=False), "producer warpgroup"),
    (cf.Config(128, 1, 4, wgs=3), "one or two warpgroups"), (cf.Config(64, 1, 1, stages=2, turns=True), "turns"),
    (cf.Config(128, 2, 2, lazy=True), "a ring"), (cf.Config(128, 2, 2, pinned=True), "a ring"),
    (cf.Config(128, 2, 2, straight=True), "a ring"), (cf.Config(64, 1, 1, stages=2, early=True), "lazy=True"),
    (cf.Config(128, 1, 1, wgs=2, stages=2, persistent=True), "pinned=True"),
    (cf.Config(64, 1, 1, stages=2, persistent=True, pinned=True), "several warpgroups"),
    (cf.Config(64, 1, 1, stages=2, halves=True), "no halves"), (cf.Config(64, 1, 2, stages=2), "tiles=1"),
    (cf.Config(64, 1, 1, stages=2, keys_first=True), "no keys_first"), (cf.Config(96, 2, 2), "block_n 96"),
    (cf.Config(128, 2, 2, wgs=4), "four"), (cf.Config(64, 1, 1, stages=1), "stages >= 2"),
    (cf.Config(128, 2, 2, loader_warp=False), "a ring")])
def test_constraints_name_what_a_ring_cannot_take(config, problem):
    assert problem in cf.constraints(config, 64, 512)


@pytest.mark.skipif(not cf.AVAILABLE, reason="needs flashcore[hopper] (CuTe DSL)")
@pytest.mark.parametrize("block_n", [64, 96, 128])
@pytest.mark.parametrize("causal", [False, True])
def test_straight_rings_mask_exactly_the_ragged_tiles(block_n, causal):
    """``straight`` runs tiles 1 .. n_plain - 1 without a mask: none of them may be ragged (past
    the last key, or across any of the warpgroup's 64 rows' diagonal), and every later tile is."""
    import cutlass

    op = cf.ClusterSplitForward(cutlass.BFloat16, 64, cf.Config(block_n, 1, 1, stages=2, straight=True), causal)
    for seq_k in (1, 100, 1000, 2048):
        for offset in range(-70, 140):  # every residue of the tile: a diagonal on every tile edge
            for m_block in range(6):
                n_tiles = -(-seq_k // block_n)
                n_plain = op._plain_tiles(m_block, seq_k, offset, n_tiles)
                ragged = [j * block_n + block_n > seq_k
                          or (causal and j * block_n + block_n - 1 > m_block * cf.BLOCK_M + offset)
                          for j in range(n_tiles)]
                assert not any(ragged[:n_plain]) and all(ragged[n_plain:]), (seq_k, offset, m_block, n_plain)


def test_only_resident_tiles_are_traced():
    if not cf.AVAILABLE:
        pytest.skip("needs flashcore[hopper] (CuTe DSL) to build")
    with pytest.raises(ValueError, match="stages=2"):
        cf.build("float16", 64, cf.Config(64, 1, 1, stages=2), False, trace=True)


def test_constraints_reject_tiles_that_miss_keys_or_overflow_shared_memory():
    assert cf.constraints(cf.Config(128, 2, 2), 64, 512) is None
    assert "do not cover" in cf.constraints(cf.Config(128, 2, 1), 64, 512)
    assert "shared memory" in cf.constraints(cf.Config(128, 1, 4), 128, 512)


@pytest.mark.parametrize("seq_k", [1, 300, 512, 1024])
def test_heuristic_is_config_for_where_one_fits(seq_k):
    assert cf.heuristic_config(90, 64, 2, False, seq_k, seq_k) == cf.config_for(seq_k, 64)
    causal = cf.heuristic_config(90, 64, 2, True, seq_k, seq_k, batch_heads=1)
    assert not cf.heuristic_config(90, 64, 2, True, seq_k, seq_k, batch_heads=1024).exclusive  # two waves
    assert causal.exclusive and (causal.split, causal.tiles) == (cf.config_for(seq_k, 64).split, cf.config_for(seq_k, 64).tiles)


def test_heuristic_follows_the_grid_at_the_seed():
    assert cf.heuristic_config(90, 64, 2, False, 512, 512, 8) == cf.Config(128, 2, 2)  # B=1
    assert cf.heuristic_config(90, 64, 2, True, 512, 512, 8) == cf.Config(128, 2, 2, exclusive=True, halves=True)
    for causal in (False, True):  # B=2: the split grid is past one wave, the unsplit one is not
        unsplit = cf.Config(128, 1, 4, wgs=2, interleave=True)
        if causal:
            unsplit = cf.Config(128, 1, 4, wgs=4, keys_first=True)
        assert cf.heuristic_config(90, 64, 2, causal, 512, 512, 16) == unsplit
    assert cf.heuristic_config(90, 64, 2, False, 512, 512, 32) == cf.Config(128, 2, 2)  # past a wave either way
    assert not cf.heuristic_config(90, 64, 2, True, 1024, 512, 8).keys_first  # rows longer than the keys


@pytest.mark.parametrize("head_dim", [64, 128])
@pytest.mark.parametrize("seq_k", [7, 257, 512])
def test_an_exclusive_cta_leaves_no_room_for_a_second(head_dim, seq_k):
    """Two CTAs of an exclusive config overflow one SM's shared memory (each CTA also takes
    1 KB); the seed's plain config fits twice. Padding never passes the per-block limit."""
    plain = cf.config_for(seq_k, head_dim)
    exclusive = cf.Config(plain.block_n, plain.split, plain.tiles, exclusive=True)
    # smem_bytes counts 1 KB of alignment slack; a resident CTA takes 1 KB more.
    assert 2 * cf.smem_bytes(head_dim, exclusive) > cf.SM_SMEM_BYTES
    assert cf.smem_bytes(head_dim, exclusive) <= cf.SMEM_BYTES
    if (seq_k, head_dim) == (512, 64):
        assert 2 * (cf.smem_bytes(head_dim, plain) + 1024) <= cf.SM_SMEM_BYTES


OFFLINE_BUILD = r"""
import glob, json, os, subprocess, sys
os.environ["CUTE_DSL_ARCH"] = "sm_90a"  # read when cutlass is imported: set before
import triton
from flashcore.kernels import cute_fwd as cf

d, causal, split, tiles, wgs = int(sys.argv[1]), sys.argv[2] == "causal", int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5])
knobs = dict(k.split("=") for k in sys.argv[6].split(",") if "=" in k)
config = cf.Config(int(knobs.get("block_n", 128)), split, tiles, exclusive=causal and split > 1, wgs=wgs,
                   interleave="interleave" in sys.argv[6], halves="halves" in sys.argv[6],
                   stages=int(knobs.get("stages", 0)), loader_warp="noloader" not in sys.argv[6],
                   lazy="lazy" in sys.argv[6], turns="turns" in sys.argv[6],
                   persistent="persistent" in sys.argv[6], pinned="pinned" in sys.argv[6],
                   straight="straight" in sys.argv[6], early="early" in sys.argv[6], own_rows="own_rows" in sys.argv[6],
                   keys_first="keys_first" in sys.argv[6])
cf.build("bfloat16", d, config, causal, options="--enable-tvm-ffi --keep-cubin")
cubin = glob.glob("*.cubin")[0]
tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
sass = subprocess.run([tool, "-sass", cubin], capture_output=True, text=True, check=True).stdout
print(sass.count("WARPGROUP.ARRIVE"))
print(json.dumps(subprocess.run([tool, "-res-usage", cubin], capture_output=True, text=True, check=True).stdout))
"""


@pytest.mark.skipif(not cf.AVAILABLE, reason="needs flashcore[hopper] (CuTe DSL) to compile")
@pytest.mark.parametrize("d,causal,split,tiles,wgs,knobs", [
    (64, "full", 2, 2, 1, "-"), (64, "causal", 2, 2, 1, "-"), (64, "full", 1, 4, 2, "-"), (64, "causal", 1, 4, 2, "-"),
    (128, "causal", 2, 2, 1, "-"), (64, "causal", 2, 2, 2, "-"),
    (64, "full", 1, 4, 2, "interleave"), (64, "full", 2, 2, 1, "halves"), (64, "causal", 2, 2, 1, "halves"),
    (64, "causal", 2, 2, 2, "halves,own_rows"), (64, "causal", 1, 4, 4, "-"),
    (64, "full", 1, 8, 4, "block_n=64,interleave"), (64, "full", 1, 4, 2, "interleave,keys_first"),
    (128, "causal", 1, 1, 1, "block_n=64,stages=2"), (128, "causal", 1, 1, 1, "block_n=32,stages=5"),
    (64, "full", 1, 1, 1, "stages=2"), (128, "causal", 1, 1, 1, "block_n=32,stages=2,noloader"),
    (128, "causal", 1, 1, 2, "stages=2"), (64, "full", 1, 1, 3, "block_n=64,stages=3"),
    (64, "causal", 1, 1, 2, "stages=3"), (64, "causal", 1, 1, 3, "block_n=96,stages=3,lazy,turns"),
    (128, "full", 1, 1, 2, "stages=3,lazy,turns"), (128, "full", 1, 1, 2, "stages=2,persistent,pinned"),
    (64, "causal", 1, 1, 3, "block_n=96,stages=2,lazy,turns,persistent,pinned"),
    (64, "causal", 1, 1, 3, "stages=2,lazy,turns,pinned"),
    (64, "full", 1, 1, 3, "stages=2,turns,pinned,straight"), (128, "causal", 1, 1, 2, "stages=2,straight"),
    (128, "causal", 1, 1, 2, "stages=2,straight,lazy,early,pinned"),
    (128, "full", 1, 1, 2, "block_n=176,stages=2,pinned")])
def test_offline_build_for_sm90_has_no_spills(tmp_path, d, causal, split, tiles, wgs, knobs):
    """The builds the probes ran, compiled for sm_90a on this machine: no local memory, at most
    255 registers (one warpgroup per CTA), shared memory within the arch's limit."""
    import json
    import re
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", OFFLINE_BUILD, str(d), causal, str(split), str(tiles), str(wgs), knobs],
                         cwd=tmp_path, capture_output=True, text=True, timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    usage = json.loads(run.stdout.strip().splitlines()[-1])
    if "pinned" in knobs:
        # A ring issues its GEMMs from four sites (six when straight: two loops); ptxas adds
        # arrives where it serializes the wgmmas (C7512: 32) or injects them around register
        # operands (C7519: 14, as in the unpinned 192 x 96 ring).
        sites = 6 if "straight" in knobs else 4
        assert int(run.stdout.strip().splitlines()[-2]) == sites, run.stdout
    regs = [int(r) for r in re.findall(r"REG:(\d+)", usage)]
    assert regs and max(regs) <= 255, usage
    assert all(int(x) == 0 for x in re.findall(r"(?:STACK|LOCAL):(\d+)", usage)), usage
    sizes = dict(k.split("=") for k in knobs.split(",") if "=" in k)
    config = cf.Config(int(sizes.get("block_n", 128)), split, tiles, wgs=wgs, stages=int(sizes.get("stages", 0)),
                       persistent="persistent" in knobs)
    assert cf.smem_bytes(d, config) <= cf.SMEM_BYTES


def test_halves_is_for_two_ranks_of_one_warpgroup():
    assert cf.constraints(cf.Config(128, 2, 2, halves=True), 64, 512) is None
    assert "halves" in cf.constraints(cf.Config(128, 1, 4, wgs=2, halves=True), 64, 512)
    assert "halves" in cf.constraints(cf.Config(128, 2, 2, wgs=2, halves=True), 64, 512)
    assert "head dim 64" in cf.constraints(cf.Config(128, 2, 2, halves=True), 128, 512)


def _stamps(entry, step, config, missing=()):
    """One traced slot: events entry, entry + step, ... as the kernel writes them."""
    slot = []
    for k in range(len(cf.TRACE_EVENTS)):
        slot += [float("nan") if k in missing else float((entry + k * step) % (1 << 24)), 0.0]
    return slot + [7.0, 3.0]


def test_decode_trace_unwraps_the_timer_and_names_each_slot():
    config = cf.Config(128, 2, 2)
    near_wrap = (1 << 24) - 100  # rank 0 enters just before the 24-bit timer wraps
    words = _stamps(near_wrap, 50, config) + _stamps(near_wrap + 20, 40, config, missing=(7, 8))
    words += [float("nan")] * 13  # the buffer's unstamped tail
    first, second = cf.decode_trace(words, config)
    assert (first["rank"], second["rank"], first["wg"], first["sm"], first["block"]) == (0, 1, 0, 7, 3)
    assert [first["ns"][e] for e in cf.TRACE_EVENTS] == [50 * k for k in range(9)]
    assert second["ns"]["entry"] == 20 and second["ns"]["exit"] is None
    later = cf.decode_trace(words, config, origin=cf.trace_origin(words) - 1000)
    assert later[0]["ns"]["entry"] == 1000
    assert cf.trace_words(config, batch_heads=8, seq_q=1) == 2 * 8 * 1 * cf.TRACE_WORDS  # more than 8 LSE floats


TIMER_READS = r"""
import glob, os, subprocess, sys
os.environ["CUTE_DSL_ARCH"] = "sm_90a"
import triton
from flashcore.kernels import cute_fwd as cf

config = cf.Config(128, 2, 2, exclusive=True, halves=True)
cf.build("float16", 64, config, True, options="--enable-tvm-ffi --keep-cubin", trace=sys.argv[1] == "trace")
tool = os.path.join(os.path.dirname(triton.__file__), "backends", "nvidia", "bin", "cuobjdump")
sass = subprocess.run([tool, "-sass", glob.glob("*.cubin")[0]], capture_output=True, text=True, check=True).stdout
print(sass.count("SR_GLOBALTIMER"))
"""


@pytest.mark.skipif(not cf.AVAILABLE, reason="needs flashcore[hopper] (CuTe DSL) to compile")
@pytest.mark.parametrize("mode,reads", [("trace", 9), ("plain", 0)])
def test_only_the_diagnostic_build_reads_the_timer(tmp_path, mode, reads):
    """The traced build stamps nine events; the launcher's build has no timer read at all."""
    import subprocess
    import sys

    run = subprocess.run([sys.executable, "-c", TIMER_READS, mode], cwd=tmp_path, capture_output=True, text=True,
                         timeout=300)
    assert run.returncode == 0, run.stderr[-2000:]
    assert int(run.stdout.strip().splitlines()[-1]) == reads


@pytest.mark.gpu
@pytest.mark.skipif(not (HAS_SM90 and cf.AVAILABLE), reason="gpu tier: needs an sm_90 GPU and flashcore[hopper]")
@pytest.mark.parametrize("config,causal", [(cf.Config(128, 2, 2), False),
                                           (cf.Config(128, 2, 2, exclusive=True, halves=True), True),
                                           (cf.Config(128, 1, 4, wgs=2, interleave=True), False)], ids=str)
def test_a_traced_launch_stamps_its_phases_in_order(config, causal):
    """The diagnostic build still computes O; every CTA and warpgroup stamps its entry to its
    last P@V in order (a CTA with no visible key tile skips "first K landed"), and the CTAs
    that store O stamp the store's phases after them."""
    from flashcore.kernels.launch import pdl_on

    fn = cf.build("float16", 64, config, causal, pdl_on(), trace=True)
    g = torch.Generator(device="cuda").manual_seed(11)
    q, k, v = (torch.randn(1, 8, 512, 64, device="cuda", dtype=torch.float16, generator=g) for _ in range(3))
    out = torch.full_like(q, float("nan"))
    lse = torch.full(q.shape[:3], float("nan"), device="cuda")
    fn(q, k, v, out, lse, 0.125 * cf.LOG2E, 0)
    torch.cuda.synchronize()
    assert judge(out, q, k, v, causal=causal, scale=0.125).ok
    records = cf.decode_trace(lse.flatten().tolist(), config)
    assert len(records) == config.split * 8 * 8 * config.wgs
    assert cf.trace_words(config, 8, 512) <= lse.numel()
    for r in records:
        chain = [r["ns"][e] for e in cf.TRACE_EVENTS[:6]]
        # A causal rank whose keys all lie past its rows' diagonal loads no tile: no "first K landed".
        assert None not in chain[:3] + chain[4:], r
        chain = [t for t in chain if t is not None]
        assert chain == sorted(chain), r
        tail = [t for t in (r["ns"][e] for e in cf.TRACE_EVENTS[6:]) if t is not None]
        assert tail == sorted(tail), r
