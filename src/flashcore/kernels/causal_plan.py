"""Balanced static schedules for persistent causal launches: stream-K over causal items.

A causal work item (a query block of one head) is as long as the keys its rows see, so
block m of a square launch takes about m + 1 key tiles. The dynamic schedule hands the
items out longest first as CTAs free up (FA3's LPT order); its last items leave SMs idle
while the longest run. A plan gives each CTA a fixed share instead:
- whole pairs of items, a long one and its short partner (block m with block n_m - 1 - m:
  equal work on a square launch), where one or two pairs a CTA seat them all
  (``pair_rows``); nothing is cut;
- else one contiguous run of (item, key tile) pairs per CTA, the runs of equal modelled cost
  (``plan_rows``). An item cut between CTAs runs as pieces, one per CTA, merged through a
  workspace: each piece publishes its softmax state and adds its tile count to the item's
  ticket, and the piece that completes the count folds the states in key order and stores
  the rows. Nobody waits on another CTA.

The sequence is the longest and the shortest items left, in turn (``item_tiles``;
``gluon_fwd._tile_coords`` with ZIGZAG): runs over the longest-first order gave the last
CTAs dozens of one-tile items, each paying a whole prologue and epilogue, and read
0.73-0.89x of the dynamic schedule (2026-11-26-h100-causal-plan/1-contiguous/). Where a
run would end within SNAP tiles of an item's edge it ends there, which halves the cuts.
Where the dispatch uses a plan: ``gluon_fwd.causal_plan_pays``.

Plan rows, one per CTA and one past the last, four int32 each: (item, tile, cf, k). CTA c
runs from row c's (item, tile) up to row c + 1's; (cf, k) describe the item at row c's
position: if it is cut, its pieces are in CTAs cf .. cf + k - 1, else k = 1. Piece p of a
cut item lives in workspace slot 2 (cf + p) + 1, except the last piece (the item's tail),
in slot 2 (cf + k - 1): the one piece of a CTA that is its last and not a tail takes the
odd slot, so a CTA's two partial pieces never share one. The ticket of a cut item is cf's.
"""

from __future__ import annotations

import bisect
import itertools

import torch

from .triton_fwd import cdiv

# Modelled cost, in unmasked key tiles: a masked (diagonal) tile, a piece's prologue and
# epilogue, and a partial piece's publish and merge.
MASKED_TILE = 1.3
PIECE = 1.7
MERGE = 0.5
# Share of the CTAs that pairs of whole items must fill, and the most pairs a CTA takes, for a
# plan of pairs (``pair_rows``). Paired rounds against the dynamic schedule (2026-11-26-h100-
# causal-plan/9-pairs/, 10-more-pairs/): one pair a CTA 1.14-1.26x, two 1.04-1.06x, four
# 1.03x, eight (the standard preset) 0.98-1.00x.
PAIRS_FILL = 7 / 8
PAIRS_MAX = 2
# Key tiles from an item's edge within which a run ends at the edge instead of cutting.
SNAP = 3


def item_tiles(seq_q: int, seq_k: int, batch_heads: int, block_m: int, block_n: int, lead: int = 0) -> list:
    """(key tiles, unmasked key tiles) of every causal work item in a plan's order: the
    longest and the shortest left, in turn (``gluon_fwd._tile_coords`` with ZIGZAG, over one
    chunk of heads), so that every run holds a like mix of long and short items."""
    longest = longest_first(seq_q, seq_k, batch_heads, block_m, block_n, lead)
    total = len(longest)
    return [longest[i // 2 if i % 2 == 0 else total - 1 - i // 2] for i in range(total)]


def longest_first(seq_q: int, seq_k: int, batch_heads: int, block_m: int, block_n: int, lead: int = 0) -> list:
    """The items in the dynamic schedule's order over one chunk of heads (``_tile_coords``):
    query blocks from the last, each over every head, starting ``lead`` rows before row 0
    (``causal_lead``, where the launch ``gluon_fwd.leads``)."""
    n_m = cdiv(seq_q, block_m)
    offset = seq_k - seq_q
    items = []
    for tile in range(n_m * batch_heads):
        m0 = (n_m - 1 - tile // batch_heads) * block_m - lead
        hi = max(min(seq_k, m0 + block_m + offset), 0)
        full = min(max(m0 + offset + 1, 0), seq_k)
        n = max(cdiv(hi, block_n), 1)
        items.append((n, min(full // block_n, n)))
    return items


def causal_lead(seq_q: int, block_m: int) -> int:
    """Rows by which the causal query blocks of a launch that ``gluon_fwd.leads`` start before
    row 0 (``gluon_fwd._causal_lead``): the last block's padding, in whole 64-row warpgroups,
    so that the last block ends at row Sq (to within 63 rows) and the first holds it."""
    return (cdiv(seq_q, block_m) * block_m - seq_q) // 64 * 64


def _cost(n: int, n_full: int, t0: int, t1: int) -> float:
    """Modelled cost of key tiles [t0, t1) of an item; its first n_full tiles are unmasked."""
    unmasked = max(0, min(t1, n_full) - t0)
    return unmasked + (t1 - t0 - unmasked) * MASKED_TILE


def _tiles_within(n: int, n_full: int, t0: int, budget: float) -> int:
    """How many key tiles from t0 on cost at most ``budget`` (``_cost``)."""
    unmasked = max(0, n_full - t0)
    if budget <= unmasked:
        return int(budget)
    return min(n - t0, unmasked + int((budget - unmasked) / MASKED_TILE))


def plan_rows(items: list, ctas: int) -> list | None:
    """Rows of a plan over ``items`` for ``ctas`` CTAs (module docstring), or None where
    some CTA would get no key tile.

    Cuts fall where the running cost crosses a multiple of the mean: every CTA gets the
    same share, plus the charges of its at most two partial pieces."""
    costs = [PIECE + _cost(n, n_full, 0, n) for n, n_full in items]
    before = [0.0, *itertools.accumulate(costs)]
    share = before[-1] / ctas
    starts = [(0, 0)]
    for c in range(1, ctas):
        target = c * share
        i = min(bisect.bisect_right(before, target) - 1, len(items) - 1)
        n, n_full = items[i]
        t = _tiles_within(n, n_full, 0, max(target - before[i] - PIECE, 0.0))
        # A cut costs a second prologue and epilogue and a merge: within SNAP tiles of an
        # item's edge, the run ends there instead.
        if t < SNAP or n - t < SNAP:
            t = 0 if t < n - t else n
        start = (i + 1, 0) if t >= n else (i, t)
        if start <= starts[-1]:  # float ties: every run keeps at least one tile
            if starts[-1][0] >= len(items):
                return None
            start = _next_tile(items, starts[-1])
        starts.append(start)
    if starts[-1][0] >= len(items):
        return None
    rows = [[i, t, 0, 1] for i, t in starts] + [[len(items), 0, 0, 1]]
    _mark_cuts(rows)
    return rows


def pairs_each(items: int, ctas: int) -> int:
    """Pairs of whole items per CTA for a plan of pairs (``pair_rows``), or 0 where pairs
    would leave more than 1 - PAIRS_FILL of ``ctas`` idle or take more than PAIRS_MAX each."""
    pairs = cdiv(items, 2)
    each = cdiv(pairs, ctas)
    return each if each <= PAIRS_MAX and cdiv(pairs, each) >= ctas * PAIRS_FILL else 0


def pair_rows(items: list, ctas: int) -> list | None:
    """Rows of a plan that gives each CTA whole pairs of the zigzag order, a long item and
    its short partner (equal work for a square launch: n_m + 1 tiles a pair), ``pairs_each``
    of them: nothing is cut. None where pairs do not fit."""
    each = pairs_each(len(items), ctas)
    if not each:
        return None
    used = cdiv(cdiv(len(items), 2), each)
    return [[min(2 * each * c, len(items)), 0, 0, 1] for c in range(used + 1)]


def _next_tile(items: list, position: tuple) -> tuple:
    i, t = position
    return (i, t + 1) if t + 1 < items[i][0] else (i + 1, 0)


def _mark_cuts(rows: list) -> None:
    """Fill (cf, k) of every row whose item is cut: it began in an earlier run (tile > 0)
    or runs on into the next one (the next row starts inside it)."""
    ctas = len(rows) - 1
    for c in range(ctas):
        item = rows[c][0]
        first = c
        while rows[first][0] == item and rows[first][1] > 0:
            first -= 1
        last = c
        while rows[last + 1][0] == item and rows[last + 1][1] > 0:
            last += 1
        if last > first:
            rows[c][2], rows[c][3] = first, last - first + 1


# Plans on the device, never freed: a CUDA graph captured through a launch keeps reading
# its plan after the launch's own plan (``flashcore.plans``) is dropped. One per shape, at
# most 2 KB each on an H100 (133 rows), and 1-7 ms of host time when a shape is first seen.
_TABLES: dict = {}


def table(seq_q: int, seq_k: int, batch_heads: int, block_m: int, block_n: int, ctas: int,
          device: torch.device, lead: int = 0) -> torch.Tensor | None:
    """The plan's rows as an int32 tensor of (CTAs + 1) x 4 on ``device`` (module docstring):
    pairs of whole items (``pair_rows``; fewer CTAs than ``ctas`` may run) or equal-cost
    runs over ``ctas`` CTAs (``plan_rows``); None where some CTA would get no key tile."""
    key = (seq_q, seq_k, batch_heads, block_m, block_n, ctas, device, lead)
    if key not in _TABLES:
        items = item_tiles(seq_q, seq_k, batch_heads, block_m, block_n, lead)
        rows = pair_rows(items, ctas)
        if rows is None:
            rows = plan_rows(items, ctas)
        _TABLES[key] = None if rows is None else torch.tensor(rows, dtype=torch.int32, device=device)
    return _TABLES[key]
