"""A shoe's results against what the exact odds expected for the cards that were dealt.

For each complete game of a shoe (in order), the exact chances of Banker, Player and Tie
are those of the next game from the cards still in the shoe just before it
(`analysis.odds.shoe_odds`: the full shoe less the new-shoe burn and every card of the games
before it, set-aside cards included). Their sums over the shoe are the expected counts; the
results the shoe gave are the observed ones. Pearson's score

    X2 = sum over Banker, Player, Tie of (observed - expected)^2 / expected

is close to a chi-square with 2 degrees of freedom when the shoe deals by chance, whose tail
is exactly exp(-X2 / 2): the p-value, the chance that a fair shoe runs at least this far from
its odds. A small p-value (under 0.01) says the shoe ran further from chance than one shoe in
a hundred does. With fewer than 5 expected of any result the score is not a fair test: no
p-value is given. docs/charts.md says more.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from dealer_assist.analysis.composition import CompositionError, full_shoe, take_card
from dealer_assist.analysis.odds import shoe_odds
from dealer_assist.domain.cards import CardError

RESULTS = ("banker", "player", "tie")
#: The least expected count of every result for the p-value to be given.
MIN_EXPECTED = 5.0


@dataclass(frozen=True)
class Fit:
    """A shoe's observed and expected results and how far apart they are."""

    shoe_id: str
    games: int
    observed: dict[str, int]
    expected: dict[str, float]
    chi2: float
    #: None when some result is expected fewer than MIN_EXPECTED times.
    p_value: float | None
    #: Cards the composition could not take out (unreadable, or more copies than a shoe has).
    unknown_cards: int


def _take(counts: tuple[int, ...], cards: Sequence[str]) -> tuple[tuple[int, ...], int]:
    unknown = 0
    for code in cards:
        try:
            counts = take_card(counts, code)
        except (CompositionError, CardError):
            unknown += 1
    return counts, unknown


def shoe_fit(shoe: Mapping[str, Any]) -> Fit:
    """The fit of one shoe of an audit report (`domain.report.shoe_view`'s dict)."""
    variant = shoe["variant"]
    counts, unknown = _take(full_shoe(int(shoe["decks"])), shoe["burn"]["cards"])
    observed = dict.fromkeys(RESULTS, 0)
    expected = dict.fromkeys(RESULTS, 0.0)
    games = 0
    for game in shoe["games"]:
        if game["status"] == "complete" and game["winner"] in RESULTS:
            try:
                odds = shoe_odds(counts, variant)
            except CompositionError:  # too few cards left to deal a game: the shoe is spent
                break
            expected["banker"] += float(odds.banker)
            expected["player"] += float(odds.player)
            expected["tie"] += float(odds.tie)
            observed[game["winner"]] += 1
            games += 1
        counts, missed = _take(counts, [*game["player"], *game["banker"], *game["set_aside"]])
        unknown += missed
    chi2 = sum((observed[r] - expected[r]) ** 2 / expected[r] for r in RESULTS
               if expected[r] > 0)
    fair = games > 0 and min(expected.values()) >= MIN_EXPECTED
    return Fit(str(shoe["shoe_id"]), games, observed, expected, chi2,
               math.exp(-chi2 / 2) if fair else None, unknown)
