"""Exact odds of the next game for any remaining shoe: no simulation.

`shoe_odds(counts, variant)` returns the joint distribution of (cards dealt, Player total,
Banker total, sevens in the game) for the next game dealt from a shoe holding `counts`
(13 rank counts, A..K), and the Player / Banker pair chances. Floats by default; with
`exact=True` every figure is a `Fraction`.

How: the chance of every multiset of up to six card values is built level by level from the
value counts (a repeat and two multiplies per level), weighted by the number of games that
multiset makes for each Player total (`deal_tables.py`), and summed into the joint
distribution with one `reduceat`: 0.1-0.2 ms a composition (`benchmarks/odds.py`).

Pairs need ranks, not values, and do not depend on the rest of the game: any two given
cards of a shuffled shoe are a pair with chance `sum n_r (n_r - 1) / N (N - 1)`. In 7up
Player's first card is the fixed 7, so Player has a pair when its shoe card is a 7.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from operator import mul
from typing import Any

import numpy as np

from dealer_assist.analysis.composition import CompositionError, check_counts
from dealer_assist.analysis.deal_tables import CARDS_AXIS, JOINT_SHAPE, DealTables, deal_tables
from dealer_assist.domain.rules import VARIANTS

_K = np.arange(7, dtype=np.float64)
_ONE = np.ones(1, dtype=np.float64)
_CELLS = int(np.prod(JOINT_SHAPE))
_P = np.arange(10)[:, None]
_B = np.arange(10)[None, :]
#: Masks over (Player total, Banker total).
PLAYER_WINS = _P > _B
BANKER_WINS = _B > _P
TIE = _P == _B


def is_seven_up(variant: str) -> bool:
    if variant not in VARIANTS:
        raise ValueError(f"unknown variant {variant!r}; known: {', '.join(VARIANTS)}")
    return variant == "7up"


@dataclass(frozen=True, slots=True)
class ShoeOdds:
    """The odds of the next game from one composition.

    `joint[c, p, b, s]` is the chance that the game deals `CARDS_AXIS[c]` cards (4, 5 or 6;
    the fixed 7 of 7up counts, as in the audit's `cards`), ends with Player total p and
    Banker total b, and holds s sevens (the fixed 7 counts).
    """

    variant: str
    remaining: tuple[int, ...]
    joint: np.ndarray  # float64, or object array of Fraction when exact
    player_pair: Any  # float | Fraction
    banker_pair: Any

    @property
    def exact(self) -> bool:
        return self.joint.dtype == object

    @property
    def totals(self) -> np.ndarray:
        """`totals[p, b]`: chance the game ends Player p, Banker b."""
        return self.joint.sum(axis=(0, 3))

    @property
    def banker(self) -> Any:
        return self.totals[BANKER_WINS].sum()

    @property
    def player(self) -> Any:
        return self.totals[PLAYER_WINS].sum()

    @property
    def tie(self) -> Any:
        return self.totals[TIE].sum()

    @property
    def cards(self) -> dict[int, Any]:
        """Chance of 4, 5 and 6 cards dealt."""
        by_cards = self.joint.sum(axis=(1, 2, 3))
        return {n: by_cards[i] for i, n in enumerate(CARDS_AXIS)}

    @property
    def sevens(self) -> dict[int, Any]:
        """Chance of 0..6 sevens in the completed game (the fixed 7 of 7up counts)."""
        by_sevens = self.joint.sum(axis=(0, 1, 2))
        return {n: by_sevens[n] for n in range(JOINT_SHAPE[3])}


def shoe_odds(counts: Sequence[int], variant: str = "standard", exact: bool = False) -> ShoeOdds:
    """The odds of the next game dealt from `counts` (13 rank counts, A..K) under `variant`.

    Raises CompositionError when the counts are not a shoe or hold fewer cards than the
    longest game needs (6; 5 in 7up).
    """
    counts = check_counts(counts)
    tables = deal_tables(is_seven_up(variant))
    n = sum(counts)
    if n < tables.max_cards:
        raise CompositionError(
            f"composition holds {n} card(s); a {variant} game may need {tables.max_cards}"
        )
    values = [sum(counts[9:]), *counts[:9]]  # cards of each value 0..9 (T J Q K are 0)
    same = sum(map(mul, counts, counts)) - n  # sum of k (k - 1): ordered pairs of a rank
    if exact:
        joint = _joint_exact(tables, values, n)
        banker_pair: Any = Fraction(same, n * (n - 1))
        player_pair: Any = Fraction(counts[6], n) if tables.seven_up else banker_pair
    else:
        joint = joint_float(tables, values, n)
        banker_pair = same / (n * (n - 1))
        player_pair = counts[6] / n if tables.seven_up else banker_pair
    return ShoeOdds(variant, counts, joint, player_pair, banker_pair)


def joint_float(tables: DealTables, values: Sequence[int], n: int) -> np.ndarray:
    """The joint distribution (JOINT_SHAPE, float64) for value counts `values[v]`, N = n.

    Every chance is the same product, in the same order, as the level-by-level definition
    (parent's chance times `c[v] - k`, times `1 / (N - s + 1)`), so the floats are the same
    to the bit; only the bookkeeping is cheaper (see `deal_tables`).
    """
    table = (np.array(values, dtype=np.float64)[:, None] - _K).ravel()
    factors = table.take(tables.factor_all)
    level = factors[:10] * (1.0 / n)  # level 1: the parent is the empty multiset, chance 1
    levels = [_ONE, level]
    at = 10
    for s in range(2, tables.max_cards):
        level = level.repeat(tables.repeats[s])
        level *= factors[at : at + len(level)]
        level *= 1.0 / (n - s + 1)
        levels.append(level)
        at += len(level)
    per_row = np.concatenate(levels).take(tables.row_source)
    last = per_row[tables.last_rows :]  # the longest games: parent's chance so far
    last *= factors[at:]
    last *= 1.0 / (n - tables.max_cards + 1)
    products = (tables.weights * per_row).ravel()  # (Player total, row), contiguous
    joint = np.zeros(_CELLS)
    joint[tables.cells] = np.add.reduceat(products, tables.cell_start)
    return joint.reshape(JOINT_SHAPE)


def _joint_exact(tables: DealTables, values: Sequence[int], n: int) -> np.ndarray:
    """The same sums in Python integers, divided once per game length: exact Fractions."""
    table = np.array([v - k for v in values for k in range(7)], dtype=object)
    chance = np.array([1], dtype=object)
    levels = [chance]
    for s in range(1, tables.max_cards + 1):
        chance = chance[tables.parent[s]] * table[tables.factor[s]]
        levels.append(chance)
    per_row = np.concatenate(levels)[tables.rows]
    summed = np.add.reduceat(tables.weights_int * per_row, tables.segment_start, axis=1)
    falling = [1]
    for s in range(1, tables.max_cards + 1):
        falling.append(falling[-1] * (n - s + 1))
    denominators = [falling[s] for s in tables.segment_level.tolist()] * 10
    joint = np.array([Fraction(0)] * _CELLS, dtype=object)
    for cell, num, den in zip(
        tables.cells.tolist(), summed.ravel().tolist(), denominators, strict=True
    ):
        joint[cell] = Fraction(num, den)
    return joint.reshape(JOINT_SHAPE)
