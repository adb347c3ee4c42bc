"""Expected value and house edge of every bet of a pay table, for one composition's odds.

A bet's expected value is what one unit staked returns on average, the stake not counted:
`+ratio` when it wins (the pay for that total or number of sevens), `0` when it pushes
(Player and Banker on a tie, every variant), `-1` when it loses. A bet that wins with no pay
for that outcome (a pay table with `on_total` and no general `pays`) loses. The house edge
is minus the expected value, per unit of the initial stake (ties not taken out).
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

import numpy as np

from dealer_assist.analysis.deal_tables import CARDS_AXIS, JOINT_SHAPE
from dealer_assist.analysis.odds import ShoeOdds, is_seven_up
from dealer_assist.domain.paytable import BetPay, Pay, PayTable

_LOSE = Fraction(-1)
_PUSH = Fraction(0)
PAIR_BETS = ("player_pair", "banker_pair")


def _win(pay: Pay | None) -> Fraction:
    return pay.ratio if pay is not None else _LOSE


def _outcome(name: str, bet: BetPay, cards: int, p: int, b: int, sevens: int) -> Fraction:
    """What one unit on `name` returns on one cell of the joint distribution."""
    if name == "player":
        return _win(bet.for_total(p)) if p > b else (_PUSH if p == b else _LOSE)
    if name == "banker":
        return _win(bet.for_total(b)) if b > p else (_PUSH if p == b else _LOSE)
    if name == "tie":
        return _win(bet.for_total(p)) if p == b else _LOSE
    if name == "big":
        return _win(bet.pays) if cards >= 5 else _LOSE
    if name == "small":
        return _win(bet.pays) if cards == 4 else _LOSE
    if name == "super7":
        return _win(bet.for_sevens(sevens))
    raise ValueError(f"bet {name!r}: no rule for what it wins")


class BetValues:
    """Expected values of one pay table's bets, reusable across compositions.

    The outcome of every bet on every cell of the joint distribution is tabulated once,
    so one composition costs one small matrix product.
    """

    def __init__(self, paytable: PayTable) -> None:
        self.paytable = paytable
        self.seven_up = is_seven_up(paytable.variant)
        self.names: tuple[str, ...] = tuple(paytable.bets)
        self._joint_names = tuple(n for n in self.names if n not in PAIR_BETS)
        cells = list(np.ndindex(*JOINT_SHAPE))
        self._payoff_exact = np.array(
            [
                [_outcome(n, paytable.bets[n], CARDS_AXIS[c], p, b, s) for c, p, b, s in cells]
                for n in self._joint_names
            ],
            dtype=object,
        ).reshape(len(self._joint_names), len(cells))
        self._payoff = self._payoff_exact.astype(np.float64)
        self._pairs = {n: _win(paytable.bets[n].pays) for n in self.names if n in PAIR_BETS}
        self._pair_returns = {n: float(ratio) + 1.0 for n, ratio in self._pairs.items()}

    def expected(self, odds: ShoeOdds) -> dict[str, Any]:
        """Expected value per unit of every bet, in pay-table order (Fraction if exact)."""
        if is_seven_up(odds.variant) != self.seven_up:
            raise ValueError(
                f"odds of variant {odds.variant!r} cannot price "
                f"the {self.paytable.variant!r} pay table"
            )
        flat = odds.joint.ravel()
        exact = odds.exact
        if exact:
            live = [i for i, x in enumerate(flat.tolist()) if x]
            values = [
                sum((row[i] * flat[i] for i in live), Fraction(0)) for row in self._payoff_exact
            ]
        else:
            values = (self._payoff @ flat).tolist()
        out = dict(zip(self._joint_names, values, strict=True))
        for name, ratio in self._pairs.items():
            chance = odds.player_pair if name == "player_pair" else odds.banker_pair
            out[name] = (
                chance * (ratio + 1) - 1 if exact else chance * self._pair_returns[name] - 1.0
            )
        return {n: out[n] for n in self.names}

    def house_edges(self, odds: ShoeOdds) -> dict[str, Any]:
        """House edge of every bet: minus its expected value."""
        return {n: -v for n, v in self.expected(odds).items()}


def house_edges(odds: ShoeOdds, paytable: PayTable) -> dict[str, Any]:
    """House edge of every bet of `paytable` on `odds` (build a BetValues to repeat it)."""
    return BetValues(paytable).house_edges(odds)


def expected_values(odds: ShoeOdds, paytable: PayTable) -> dict[str, Any]:
    return BetValues(paytable).expected(odds)
