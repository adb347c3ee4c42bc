"""Index tables of every possible game, by the values its shoe cards take.

Theory of operation. The chance of one ordered sequence of card values, drawn from a shoe
with `c[v]` cards of value v and `N` cards in all, depends only on the *multiset* of the
values: `prod_v c[v]·(c[v]-1)···(c[v]-k_v+1) / N·(N-1)···(N-s+1)` for a multiset with `k_v`
cards of value v and `s` cards in all. So every complete game (4, 5 or 6 cards) is filed
once, here, under its multiset of shoe values, with Player's final total; Banker's total
then follows from the sum of the values. A composition's odds are a weighted sum over the
7 722 multisets of at most six values (standard deal) - a few numpy operations, see
`odds.py`.

The deal itself comes from the domain rules (`next_position`): the order of the first cards,
whether Player draws, and Banker's third-card table are read from it, never restated here.
Built once per deal (standard, 7up) in a fraction of a second and kept.

Multisets are numbered in `combinations_with_replacement` order, so the children of a
multiset (it plus one value) sit side by side, in the order of their parents: a level is its
parent level `np.repeat`ed, no gather. The longest games' level is only needed for the rows,
so the float path builds it straight in row order from the parents (`row_source`).
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cache
from itertools import combinations_with_replacement

import numpy as np

from dealer_assist.domain.rules import SEVEN_UP_FIXED_VALUE, next_position

#: Axes of the joint distribution: cards dealt (4, 5, 6), Player total, Banker total,
#: sevens in the completed game (0-6; the fixed 7 of 7up counts).
CARDS_AXIS = (4, 5, 6)
JOINT_SHAPE = (3, 10, 10, 7)
_BASE = 7  # a value occurs at most 6 times in a game: counts are base-7 digits of a key


@dataclass(frozen=True, slots=True)
class DealTables:
    """Everything `odds.py` needs about one deal, independent of any composition.

    Multisets are numbered level by level (level s = s shoe cards). For level s >= 1,
    `parent[s][i]` is the multiset without its largest value v, and `factor[s][i]` is
    `v * 7 + k` with k the copies of v in the parent: the chance of multiset i is its
    parent's times `(c[v] - k) / (N - s + 1)`.
    """

    seven_up: bool
    max_cards: int  # shoe cards in the longest game (6, or 5 in 7up)
    parent: tuple[np.ndarray, ...]
    factor: tuple[np.ndarray, ...]
    level_offset: tuple[int, ...]  # where each level starts in the concatenated chances
    rows: np.ndarray  # (n,) index of each row's multiset in the concatenated chances
    weights: np.ndarray  # (10, n) games of each row's multiset, by Player's final total
    weights_int: np.ndarray  # the same counts as Python ints (object), for exact odds
    segment_start: np.ndarray  # rows are grouped in segments; reduceat starts
    cells: np.ndarray  # (10 * segments,) flat joint index of (Player total, segment)
    segment_level: np.ndarray  # shoe cards of each segment's games
    # The float path (`odds.joint_float`): a repeat per level, two gathers in all.
    repeats: tuple[np.ndarray, ...]  # [s]: children of each level s-1 multiset (s >= 2)
    factor_all: np.ndarray  # factors of levels 1..max_cards-1, then of the last-level rows
    row_source: np.ndarray  # each row's multiset, or its parent for a last-level row
    last_rows: int  # rows before the first last-level row (rows are sorted by level)
    cell_start: np.ndarray  # segment starts in the flattened products, Player total major


def _initial_positions(seven_up: bool) -> list[str]:
    """The positions the shoe fills before both hands hold two cards (rules' order)."""
    player: list[int] = [SEVEN_UP_FIXED_VALUE] if seven_up else []
    banker: list[int] = []
    order: list[str] = []
    while len(player) < 2 or len(banker) < 2:
        pos = next_position(player, banker)
        if pos is None:  # pragma: no cover - the rules always deal two cards a side
            raise AssertionError("the rules ended a game before two cards a side")
        order.append(pos)
        (player if pos[0] == "P" else banker).append(0)
    return order


def _draw_tables(seven_up: bool) -> tuple[np.ndarray, np.ndarray]:
    """From the rules, on two-card totals: `first[p, b]` 0 = complete, 1 = Player draws,
    2 = Banker draws (Player stood); `second[p, b, x]` 1 when Banker draws after Player's
    third card of value x."""
    first = np.zeros((10, 10), dtype=np.int8)
    second = np.zeros((10, 10, 10), dtype=np.int8)
    p0 = SEVEN_UP_FIXED_VALUE if seven_up else 0
    for p in range(10):
        for b in range(10):
            player, banker = [p0, (p - p0) % 10], [0, b]
            pos = next_position(player, banker)
            first[p, b] = {None: 0, "P3": 1, "B3": 2}[pos]
            if pos == "B3" and next_position(player, [*banker, 0]) is not None:
                raise AssertionError("the rules deal past Banker's third card")  # pragma: no cover
            if pos == "P3":
                for x in range(10):
                    nxt = next_position([*player, x], banker)
                    second[p, b, x] = {None: 0, "B3": 1}[nxt]
    return first, second


def _games(seven_up: bool) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """Every complete game as (values (n, s) in deal order, Player total, Banker total)."""
    order = _initial_positions(seven_up)
    k0 = len(order)
    init = np.indices((10,) * k0).reshape(k0, -1).T.astype(np.int64)
    p = np.full(len(init), SEVEN_UP_FIXED_VALUE if seven_up else 0, dtype=np.int64)
    b = np.zeros(len(init), dtype=np.int64)
    for i, pos in enumerate(order):
        if pos[0] == "P":
            p += init[:, i]
        else:
            b += init[:, i]
    p %= 10
    b %= 10
    first, second = _draw_tables(seven_up)
    act = first[p, b]
    games = []
    done = act == 0
    games.append((init[done], p[done], b[done]))
    # Banker draws after Player stood.
    bd = act == 2
    base, pb, bb = init[bd], p[bd], b[bd]
    x = np.repeat(np.arange(10), len(base))
    games.append(
        (np.column_stack([np.tile(base, (10, 1)), x]), np.tile(pb, 10), (np.tile(bb, 10) + x) % 10)
    )
    # Player draws; Banker then draws or stands on the rules' table.
    pd = act == 1
    base, pb, bb = init[pd], p[pd], b[pd]
    x = np.repeat(np.arange(10), len(base))
    seq5 = np.column_stack([np.tile(base, (10, 1)), x])
    p5, b5 = (np.tile(pb, 10) + x) % 10, np.tile(bb, 10)
    draws = second[np.tile(pb, 10), b5, x] == 1
    games.append((seq5[~draws], p5[~draws], b5[~draws]))
    base, pb, bb = seq5[draws], p5[draws], b5[draws]
    y = np.repeat(np.arange(10), len(base))
    games.append(
        (np.column_stack([np.tile(base, (10, 1)), y]), np.tile(pb, 10), (np.tile(bb, 10) + y) % 10)
    )
    return games


def _catalogue(max_cards: int) -> tuple[list[dict[int, int]], list[np.ndarray], list[np.ndarray]]:
    """Multisets of 0..max_cards values: per level a key -> index map (the key holds the
    count of value v as its base-7 digit v), parents and factors."""
    powers = [_BASE**v for v in range(10)]
    index: list[dict[int, int]] = [{0: 0}]
    parents: list[np.ndarray] = [np.zeros(0, dtype=np.intp)]
    factors: list[np.ndarray] = [np.zeros(0, dtype=np.intp)]
    for s in range(1, max_cards + 1):
        keys: dict[int, int] = {}
        par, fac = [], []
        for ms in combinations_with_replacement(range(10), s):
            keys[sum(powers[v] for v in ms)] = len(keys)
            v = ms[-1]
            par.append(index[s - 1][sum(powers[u] for u in ms[:-1])])
            fac.append(v * _BASE + ms[:-1].count(v))
        index.append(keys)
        parents.append(np.array(par, dtype=np.intp))
        factors.append(np.array(fac, dtype=np.intp))
    return index, parents, factors


@cache
def deal_tables(seven_up: bool) -> DealTables:
    """The index tables of the standard deal (`seven_up=False`) or of 7up."""
    fixed = SEVEN_UP_FIXED_VALUE if seven_up else 0
    first_level = len(_initial_positions(seven_up))
    max_cards = first_level + 2
    index, parents, factors = _catalogue(max_cards)
    offsets = np.cumsum([0] + [len(ix) for ix in index]).tolist()
    powers = (_BASE ** np.arange(10)).astype(np.int64)
    w_total: dict[tuple[int, int], np.ndarray] = {}  # (level, multiset) -> games by P total
    for seqs, p_totals, b_totals in _games(seven_up):
        if np.any((seqs.sum(axis=1) + fixed - p_totals - b_totals) % 10):  # pragma: no cover
            raise AssertionError("a game's totals do not add up to its cards")
        s = seqs.shape[1]
        keys = powers[seqs].sum(axis=1)
        uniq, inv = np.unique(keys, return_inverse=True)
        counts = np.bincount(inv.ravel() * 10 + p_totals, minlength=len(uniq) * 10).reshape(-1, 10)
        for key, row in zip(uniq.tolist(), counts, strict=True):
            k = (s, index[s][key])
            w_total[k] = w_total[k] + row if k in w_total else row
    # Rows sorted by segment: (level, sum of the game's values mod 10, sevens).
    entries = []
    keys_of = [list(ix) for ix in index]  # dicts keep insertion order: position = index
    for (s, i), w in w_total.items():
        digits = [(keys_of[s][i] // _BASE**v) % _BASE for v in range(10)]
        total = (sum(v * d for v, d in enumerate(digits)) + fixed) % 10
        sevens = digits[7] + (1 if seven_up else 0)
        entries.append(((s, total, sevens), offsets[s] + i, w))
    entries.sort(key=lambda e: (e[0], e[1]))
    seg_keys: list[tuple[int, int, int]] = []
    starts: list[int] = []
    for n, (seg, _, _) in enumerate(entries):
        if not seg_keys or seg_keys[-1] != seg:
            seg_keys.append(seg)
            starts.append(n)
    weights = np.array([e[2] for e in entries], dtype=np.int64).T
    cells = []
    for pt in range(10):
        for level, game_sum, sevens in seg_keys:
            card_axis = level + (1 if seven_up else 0) - 4
            bt = (game_sum - pt) % 10
            cells.append(np.ravel_multi_index((card_axis, pt, bt, sevens), JOINT_SHAPE))
    rows = np.array([e[1] for e in entries], dtype=np.intp)
    repeats, factor_all, row_source, last_rows = _float_path(parents, factors, offsets, rows)
    return DealTables(
        seven_up=seven_up,
        max_cards=max_cards,
        parent=tuple(parents),
        factor=tuple(factors),
        level_offset=tuple(offsets),
        rows=rows,
        weights=np.ascontiguousarray(weights, dtype=np.float64),
        weights_int=np.array([[int(x) for x in row] for row in weights], dtype=object),
        segment_start=np.array(starts, dtype=np.intp),
        cells=np.array(cells, dtype=np.intp),
        segment_level=np.array([k[0] for k in seg_keys], dtype=np.intp),
        repeats=repeats,
        factor_all=factor_all,
        row_source=row_source,
        last_rows=last_rows,
        cell_start=(np.array(starts)[None, :] + len(rows) * np.arange(10)[:, None]).ravel(),
    )


def _float_path(
    parents: list[np.ndarray], factors: list[np.ndarray], offsets: list[int], rows: np.ndarray
) -> tuple[tuple[np.ndarray, ...], np.ndarray, np.ndarray, int]:
    """The float path's tables: repeat counts per level, every factor it multiplies by in
    the order it does, and where each row's chance (or its parent's, on the last level) is."""
    last = len(parents) - 1
    repeats: list[np.ndarray] = [np.zeros(0, dtype=np.intp)] * 2
    for s in range(2, last):
        if np.any(np.diff(parents[s]) < 0):  # pragma: no cover - itertools' order
            raise AssertionError("children of a multiset are not side by side")
        repeats.append(np.bincount(parents[s], minlength=offsets[s] - offsets[s - 1]))
    first_last = int(np.count_nonzero(rows < offsets[last]))
    if np.any(rows[first_last:] < offsets[last]):
        raise AssertionError("rows are not sorted by level")  # pragma: no cover
    on_last = rows[first_last:] - offsets[last]
    factor_all = np.concatenate([*factors[1:last], factors[last][on_last]])
    row_source = np.concatenate([rows[:first_last], parents[last][on_last] + offsets[last - 1]])
    return tuple(repeats), factor_all, row_source, first_last
