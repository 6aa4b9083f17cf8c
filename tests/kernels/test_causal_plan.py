"""The causal stream-K planner (``flashcore.kernels.causal_plan``), on the CPU: the plan's runs
cover every (item, key tile) once, the pieces of each cut item find each other's slots the way
the kernel looks for them, and the runs' modelled costs are even."""

import pytest

from flashcore.kernels import causal_plan as cp
from flashcore.kernels.triton_fwd import cdiv


def pieces(rows, items):
    """The kernel's walk (``_plan_piece``, ``_piece_tiles``): per CTA, its (item, t0, t1, step)."""
    out = []
    for c in range(len(rows) - 1):
        i0, s0, _, _ = rows[c]
        i1, s1, _, _ = rows[c + 1]
        run, step = [], 0
        while True:
            item = i0 + step
            if item > i1 or (item == i1 and s1 == 0):
                break
            t0 = s0 if step == 0 else 0
            t1 = min(s1 if item == i1 else 1 << 30, items[item][0])
            run.append((item, t0, t1, step))
            step += 1
        out.append(run)
    return out


def slot_of(rows, c, item, t1, n):
    """``_merge_plan_pieces``: a run's piece that ends inside its item takes the odd slot."""
    return 2 * c + (1 if item == rows[c + 1][0] and t1 < n else 0)


def cut_info(rows, c, step):
    """(cf, k) of a partial piece: row c's for the run's first piece, else row c + 1's."""
    row = rows[c] if step == 0 else rows[c + 1]
    return row[2], row[3]


def check_plan(items, ctas):
    rows = cp.plan_rows(items, ctas)
    assert rows is not None
    assert len(rows) == ctas + 1 and rows[0][:2] == [0, 0] and rows[-1][:2] == [len(items), 0]
    runs = pieces(rows, items)
    covered = {}
    for c, run in enumerate(runs):
        assert run, f"CTA {c} has no key tile"
        for item, t0, t1, _ in run:
            assert 0 <= t0 < t1 <= items[item][0]
            for t in range(t0, t1):
                assert (item, t) not in covered, f"tile {t} of item {item} twice"
                covered[item, t] = c
    assert len(covered) == sum(n for n, _ in items)
    # Every cut item: its pieces' own (slot, cf, k) and the merger's view of them agree.
    published = {}
    for c, run in enumerate(runs):
        for item, t0, t1, step in run:
            n = items[item][0]
            if t0 == 0 and t1 == n:
                continue
            cf, k = cut_info(rows, c, step)
            assert k >= 2 and cf <= c < cf + k
            slot = slot_of(rows, c, item, t1, n)
            assert slot not in published, f"slot {slot} taken twice"
            published[slot] = (item, t0, t1, cf, k)
    for slot, (item, t0, t1, cf, k) in published.items():
        merger_slots = [2 * (cf + p) + (1 if p < k - 1 else 0) for p in range(k)]
        got = [published[s] for s in merger_slots]
        assert [g[0] for g in got] == [item] * k
        assert [g[1] for g in got] == sorted(g[1] for g in got) and got[0][1] == 0  # key order, head first
        assert sum(g[2] - g[1] for g in got) == items[item][0]  # the ticket completes once
        assert {(g[3], g[4]) for g in got} == {(cf, k)}
    return rows


@pytest.mark.parametrize("seq_q,seq_k,batch_heads,block_m,ctas", [
    (3000, 3000, 16, 128, 132),   # the odd preset's B=2 H=8 S=3000: 384 items, 2.9 waves
    (2112, 2112, 8, 128, 132),    # 136 items, just past a wave: runs shorter than the longest items
    (1000, 1000, 6, 128, 7),      # runs of several whole items
    (300, 1500, 6, 128, 7),       # Sq < Sk: every row sees the first 1200 keys
    (1500, 300, 6, 128, 7),       # Sq > Sk: the first rows see no key (one masked tile each)
    (1000, 777, 8, 192, 5),       # 192-row items (D=64), Sq > Sk
    (257, 257, 3, 128, 5),        # items of one and three tiles, more CTAs than the last can fill
])
def test_runs_cover_every_tile_once_and_the_pieces_find_each_other(seq_q, seq_k, batch_heads, block_m, ctas):
    items = cp.item_tiles(seq_q, seq_k, batch_heads, block_m, 128)
    assert len(items) == cdiv(seq_q, block_m) * batch_heads
    check_plan(items, ctas)


def test_items_come_in_the_kernels_order():
    """ZIGZAG: the longest and the shortest left in turn, over the longest-first order of the
    dynamic schedule with one chunk (query blocks from the last, each over every head)."""
    assert cp.longest_first(512, 512, 2, 128, 128) == [(4, 3), (4, 3), (3, 2), (3, 2), (2, 1), (2, 1), (1, 0),
                                                      (1, 0)]  # the diagonal tile is masked
    assert [n for n, _ in cp.item_tiles(512, 512, 2, 128, 128)] == [4, 1, 4, 1, 3, 2, 3, 2]
    assert cp.longest_first(256, 1280, 1, 128, 128) == [(10, 9), (9, 8)]  # Sq < Sk: keys up to the offset
    assert cp.longest_first(1280, 256, 1, 128, 128)[-3:] == [(1, 0), (1, 0), (1, 0)]  # rows that see no key


def modelled_time(items, rows):
    """The longest run's modelled cost: its tiles, a PIECE per piece, a MERGE per partial one."""
    worst = 0.0
    for (i0, t0, _, _), (i1, t1, _, _) in zip(rows, rows[1:]):
        total = 0.0
        for i in range(i0, min(i1 + 1, len(items))):
            n, n_full = items[i]
            a = t0 if i == i0 else 0
            b = t1 if i == i1 else n
            if b > a:
                total += cp.PIECE + cp._cost(n, n_full, a, b) + (cp.MERGE if (a > 0 or b < n) else 0.0)
        worst = max(worst, total)
    return worst


@pytest.mark.parametrize("seq_q,block_m,lead", [
    (4096, 192, 128), (8192, 192, 64), (16384, 192, 128), (2048, 192, 64), (4000, 192, 0), (257, 192, 64),
    (1, 192, 128), (3000, 128, 64), (4096, 128, 0)])
def test_the_lead_is_the_last_blocks_padding_in_whole_warpgroups(seq_q, block_m, lead):
    assert cp.causal_lead(seq_q, block_m) == lead


def test_with_a_lead_the_longest_item_ends_at_the_last_row_and_the_padding_sees_one_tile():
    assert cp.longest_first(4096, 4096, 1, 192, 64)[0] == (64, 63)  # rows 4032-4223: 64 real
    items = cp.longest_first(4096, 4096, 1, 192, 64, cp.causal_lead(4096, 192))
    assert items[0] == (64, 61)  # rows 3904-4095
    assert items[-1] == (1, 0)  # rows -128..63
    assert [n for n, _ in items] == [3 * p + 1 for p in reversed(range(22))]  # block p: rows to 192p + 63
    assert cp.item_tiles(4096, 4096, 1, 192, 64, 128)[:2] == [items[0], items[-1]]


def test_runs_are_even_in_the_model():
    items = cp.item_tiles(3000, 3000, 16, 128, 128)
    modelled = modelled_time(items, cp.plan_rows(items, 132))
    share = sum(cp.PIECE + cp._cost(n, full, 0, n) for n, full in items) / 132
    assert share <= modelled <= share + 2 * (cp.PIECE + cp.MERGE) + cp.MASKED_TILE


def test_pairs_of_whole_items_where_they_fill_the_ctas():
    """256 items of 1-32 tiles on 132 CTAs: 128 pairs of 33 tiles each, nothing cut."""
    items = cp.item_tiles(4096, 4096, 8, 128, 128)
    rows = cp.pair_rows(items, 132)
    assert len(rows) == 129 and all(k == 1 for *_, k in rows)
    assert {sum(items[i][0] for i in (2 * c, 2 * c + 1)) for c in range(128)} == {33}
    runs = pieces(rows, items)
    assert all(len(run) == 2 and all(t0 == 0 and t1 == items[i][0] for i, t0, t1, _ in run) for run in runs)
    assert cp.pair_rows(items, 200) is None  # 128 pairs would leave a third of 200 CTAs idle
    assert cp.pair_rows(cp.item_tiles(3000, 3000, 16, 128, 128), 132) is None  # 192 pairs: 96 CTAs of two
    four = cp.pair_rows(cp.item_tiles(8192, 8192, 8, 128, 128), 132)  # 256 pairs: two a CTA on 128
    assert len(four) == 129 and [r[0] for r in four[:3]] == [0, 4, 8]
    assert cp.pairs_each(2048, 132) == 0  # eight pairs a CTA: past PAIRS_MAX
    assert cp.table(4096, 4096, 8, 128, 128, 132, "cpu").shape == (129, 4)


def test_a_plan_needs_a_key_tile_per_cta():
    assert cp.plan_rows([(1, 0)] * 3, 5) is None


def test_tables_are_kept_per_shape():
    a = cp.table(3000, 3000, 16, 128, 128, 132, "cpu")
    assert a.shape == (133, 4) and a.dtype.is_floating_point is False
    assert cp.table(3000, 3000, 16, 128, 128, 132, "cpu") is a
