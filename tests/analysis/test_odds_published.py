"""The engine reproduces the published figures of 8-deck and 6-deck baccarat."""

from __future__ import annotations

from fractions import Fraction

import pytest

from dealer_assist.analysis.composition import full_shoe
from dealer_assist.analysis.edge import BetValues, house_edges
from dealer_assist.analysis.odds import shoe_odds
from dealer_assist.config import load_paytables

PAYTABLES = load_paytables()


def test_eight_decks_banker_player_tie_and_cards():
    odds = shoe_odds(full_shoe(8))
    assert round(odds.banker, 6) == 0.458597
    assert round(odds.player, 6) == 0.446247
    assert round(odds.tie, 6) == 0.095156
    assert [round(odds.cards[n], 6) for n in (4, 5, 6)] == [0.378868, 0.303444, 0.317687]


def test_six_decks_banker_player_tie():
    odds = shoe_odds(full_shoe(6))
    assert (round(odds.banker, 6), round(odds.player, 6), round(odds.tie, 6)) == (
        0.458653,
        0.446279,
        0.095069,
    )


@pytest.mark.parametrize(
    ("variant", "bet", "edge_percent"),
    [
        ("standard", "banker", 1.0579),
        ("standard", "player", 1.2351),
        ("standard", "tie", 14.3596),
        ("standard", "player_pair", 10.3614),
        ("standard", "banker_pair", 10.3614),
        ("standard", "big", 4.3457),
        ("standard", "small", 5.2829),
        ("super6", "banker", 1.4581),
    ],
)
def test_eight_deck_house_edges(variant, bet, edge_percent):
    edges = house_edges(shoe_odds(full_shoe(8), variant), PAYTABLES[variant])
    assert round(100 * edges[bet], 4) == edge_percent


def test_exact_pair_chance_and_floats_agree_with_fractions():
    exact = shoe_odds(full_shoe(8), exact=True)
    assert exact.player_pair == exact.banker_pair == Fraction(31, 415)
    assert BetValues(PAYTABLES["standard"]).expected(exact)["player_pair"] == Fraction(-43, 415)
    assert sum(exact.joint.ravel()) == 1
    floats = shoe_odds(full_shoe(8))
    assert floats.joint == pytest.approx(exact.joint.astype(float), abs=1e-15)
    for variant in ("standard", "super6", "7up"):
        values = BetValues(PAYTABLES[variant])
        fx = values.expected(shoe_odds(full_shoe(8), variant, exact=True))
        fl = values.expected(shoe_odds(full_shoe(8), variant))
        assert all(isinstance(v, Fraction) for v in fx.values())
        assert fl == pytest.approx({k: float(v) for k, v in fx.items()}, abs=1e-13)


def test_seven_up_counts_the_fixed_seven():
    odds = shoe_odds(full_shoe(8), "7up", exact=True)
    assert odds.sevens[0] == 0  # the fixed 7 is always there
    assert sum(odds.sevens.values()) == 1
    assert odds.player_pair == Fraction(32, 416)  # Player's shoe card is a 7
    assert odds.cards[4] + odds.cards[5] + odds.cards[6] == 1


def test_a_pay_table_of_one_variant_cannot_price_another_deal():
    with pytest.raises(ValueError, match="7up"):
        BetValues(PAYTABLES["7up"]).expected(shoe_odds(full_shoe(8), "standard"))
