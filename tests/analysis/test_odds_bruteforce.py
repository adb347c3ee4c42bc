"""The exact odds engine against a brute force over every card order, on small shoes.

The brute force restates the deal plainly here (from the shared rules sheet), independent of
`dealer_assist.domain.rules` and of the engine's index tables, and prices the bets through
the domain's `PayTable.winning_bets`, not through the engine's own bet table.
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction
from itertools import permutations

import pytest

from dealer_assist.analysis.deal_tables import CARDS_AXIS
from dealer_assist.analysis.edge import BetValues
from dealer_assist.analysis.odds import shoe_odds
from dealer_assist.config import load_paytables
from dealer_assist.domain.paytable import paytable_from_mapping

RANKS = "A23456789TJQK"
VALUE = {
    "A": 1,
    "2": 2,
    "3": 3,
    "4": 4,
    "5": 5,
    "6": 6,
    "7": 7,
    "8": 8,
    "9": 9,
    "T": 0,
    "J": 0,
    "Q": 0,
    "K": 0,
}
# Banker's third card, from the rules sheet: Banker total -> Player third-card values it draws on.
BANKER_DRAWS_ON = {
    0: set(range(10)),
    1: set(range(10)),
    2: set(range(10)),
    3: {0, 1, 2, 3, 4, 5, 6, 7, 9},
    4: {2, 3, 4, 5, 6, 7},
    5: {4, 5, 6, 7},
    6: {6, 7},
    7: set(),
}


def play(cards: tuple[str, ...], seven_up: bool) -> tuple[int, int, int, int, bool, bool]:
    """Deal one game from `cards` (ranks, top of the shoe first).

    Returns (cards in the game, Player total, Banker total, sevens, Player pair, Banker pair);
    in 7up the fixed 7 is Player's first card and counts as a card and as a seven.
    """
    shoe = iter(cards)
    if seven_up:
        banker = [next(shoe)]
        player = ["7", next(shoe)]
        banker.append(next(shoe))
    else:
        player = [next(shoe)]
        banker = [next(shoe)]
        player.append(next(shoe))
        banker.append(next(shoe))

    def total(hand: list[str]) -> int:
        return sum(VALUE[c] for c in hand) % 10

    p, b = total(player), total(banker)
    if p < 8 and b < 8:
        if p <= 5:
            third = next(shoe)
            player.append(third)
            if b <= 2 or (b <= 6 and VALUE[third] in BANKER_DRAWS_ON[b]):
                banker.append(next(shoe))
        elif b <= 5:
            banker.append(next(shoe))
    game = player + banker
    return (
        len(game),
        total(player),
        total(banker),
        game.count("7"),
        player[0] == player[1],
        banker[0] == banker[1],
    )


def brute_force(counts: dict[str, int], seven_up: bool) -> dict[tuple, Fraction]:
    """Chance of every game outcome: every ordered run of cards that completes a game, each
    weighted by how many ways the shoe deals it (n_r choices for a card of rank r, one less
    for each one already out) over the ways to deal that many cards."""
    tally: Counter = Counter()

    def deal(run: tuple[str, ...], left: dict[str, int], ways: int) -> None:
        try:
            outcome = play(run, seven_up)
        except StopIteration:  # the game needs another card
            for r in RANKS:
                if left[r]:
                    deal((*run, r), {**left, r: left[r] - 1}, ways * left[r])
            return
        tally[(len(run), outcome)] += ways

    deal((), dict(counts), 1)
    n = sum(counts.values())
    out: Counter = Counter()
    for (used, outcome), ways in tally.items():
        all_ways = 1
        for i in range(used):
            all_ways *= n - i
        out[outcome] += Fraction(ways, all_ways)
    return dict(out)


def every_order(cards: list[str], seven_up: bool) -> dict[tuple, Fraction]:
    """Chance of every game outcome over every order of a tiny shoe's physical cards."""
    tally: Counter = Counter(play(order, seven_up) for order in permutations(cards))
    n = sum(tally.values())
    return {k: Fraction(w, n) for k, w in tally.items()}


def brute_values(outcomes: dict[tuple, Fraction], table) -> dict[str, Fraction]:
    """Expected value per unit of each bet, through the domain's `winning_bets`."""
    ev = {bet: Fraction(0) for bet in table.bets}
    for (cards, p, b, sevens, ppair, bpair), chance in outcomes.items():
        winner = "player" if p > b else "banker" if b > p else "tie"
        won = dict(table.winning_bets(winner, p, b, ppair, bpair, cards, sevens, True))
        for bet in table.bets:
            if bet in won:
                a, s = won[bet].split(":")
                ev[bet] += chance * Fraction(a) / Fraction(s)
            elif not (winner == "tie" and bet in ("player", "banker")):
                ev[bet] -= chance
    return ev


def assert_engine_matches(counts: dict[str, int], variant: str, tables, outcomes) -> None:
    odds = shoe_odds([counts[r] for r in RANKS], variant, exact=True)
    joint: Counter = Counter()
    ppair = bpair = Fraction(0)
    for (cards, p, b, sevens, pp, bp), chance in outcomes.items():
        joint[(CARDS_AXIS.index(cards), p, b, sevens)] += chance
        ppair += chance if pp else 0
        bpair += chance if bp else 0
    engine = {
        idx: x for idx, x in ((i, odds.joint[i]) for i in zip(*odds.joint.nonzero(), strict=True))
    }
    assert engine == dict(joint)
    assert sum(odds.joint.ravel()) == 1
    assert (odds.player_pair, odds.banker_pair) == (ppair, bpair)
    for table in tables:
        assert BetValues(table).expected(odds) == brute_values(outcomes, table)
    floats = shoe_odds([counts[r] for r in RANKS], variant)
    assert floats.joint == pytest.approx(odds.joint.astype(float), abs=1e-13)


SHIPPED = load_paytables()
SEVENS_TABLE = paytable_from_mapping(
    "7up",
    {
        "player": "1:1",
        "banker": {"on_total": {7: "3:2", 6: "1:2"}},
        "tie": "8:1",
        "super7": {"by_sevens": {2: "2:1", 3: "5:1", 4: "17:1", 5: "70:1", 6: "700:1"}},
    },
)
TABLES = {
    "standard": [SHIPPED["standard"]],
    "super6": [SHIPPED["super6"]],
    "7up": [SHIPPED["7up"], SEVENS_TABLE],
}


def small_shoes() -> list[tuple[str, dict[str, int]]]:
    """A few dozen cards of 5-8 ranks, always with 7s, often with two 0-value ranks (pairs
    by rank and by value differ), and with few cards of a rank (the deal runs some out)."""
    rng = random.Random(20261129)
    shoes = [
        ("7up", {"7": 9, "T": 7, "K": 5, "3": 6, "9": 4}),
        ("standard", {"A": 6, "5": 8, "T": 7, "Q": 6, "8": 5, "7": 4, "6": 1, "4": 2}),
    ]
    every_value = {
        "A": 2,
        "2": 3,
        "3": 2,
        "4": 3,
        "5": 2,
        "6": 3,
        "7": 3,
        "8": 2,
        "9": 3,
        "T": 3,
        "K": 2,
    }
    shoes += [("standard", every_value), ("7up", every_value)]
    for i in range(6):
        ranks = ["7", *rng.sample([r for r in RANKS if r != "7"], rng.randint(4, 7))]
        shoes.append((("standard", "super6", "7up")[i % 3], {r: rng.randint(1, 9) for r in ranks}))
    return [(v, {r: c.get(r, 0) for r in RANKS}) for v, c in shoes]


@pytest.mark.parametrize(("variant", "counts"), small_shoes())
def test_small_shoes_match_brute_force_exactly(variant, counts):
    outcomes = brute_force(counts, variant == "7up")
    assert_engine_matches(counts, variant, TABLES[variant], outcomes)


@pytest.mark.parametrize("variant", ["standard", "7up"])
def test_tiny_shoe_matches_every_order_of_its_cards(variant):
    cards = ["7S", "7H", "KD", "QC", "3S", "3H", "9D", "5C"]
    counts = Counter(c[0] for c in cards)
    outcomes = every_order([c[0] for c in cards], variant == "7up")
    assert_engine_matches({r: counts.get(r, 0) for r in RANKS}, variant, TABLES[variant], outcomes)


def test_brute_force_itself_deals_known_games():
    # Player 3+4=7 stands; Banker 5+0=5 draws the 9: Banker 4, Player wins, 5 cards.
    assert play(("3", "5", "4", "K", "9", "2"), False) == (5, 7, 4, 0, False, False)
    # 7up: B1 2, P2 T (Player 7+0=7 stands), B2 4: Banker 6 stands. 4 cards, one seven.
    assert play(("2", "T", "4", "5", "6"), True) == (4, 7, 6, 1, False, False)
    # Banker 3 stands on Player's third card 8.
    assert play(("A", "A", "A", "2", "8", "5"), False) == (5, 0, 3, 0, True, False)
