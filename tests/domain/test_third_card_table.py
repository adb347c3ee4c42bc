"""Every cell of the third-card tables, for every variant, through the table machine."""

import pytest

from dealer_assist.domain.cards import CARD_CODES, CARD_VALUE
from tests.tracebuild import BURN3, Trace

# Banker's table of baccarat-rules.md, written out again: total -> Player third values it draws on.
BANKER_DRAWS = {0: set(range(10)), 1: set(range(10)), 2: set(range(10)),
                3: {0, 1, 2, 3, 4, 5, 6, 7, 9}, 4: {2, 3, 4, 5, 6, 7}, 5: {4, 5, 6, 7}, 6: {6, 7},
                7: set()}


def card_of(v: int, suit: str = "C") -> str:
    return next(c for c in CARD_CODES if CARD_VALUE[c] == v and c[1] == suit)


def two_cards(total: int, first: int | None = None) -> tuple[int, int]:
    """Two values giving `total`; with `first` fixed (7up's 7), only the second is chosen."""
    a = 3 if first is None else first
    return a, (total - a) % 10


def play(variant: str, p_total: int, b_total: int, third: list[str]) -> dict:
    seven_up = variant == "7up"
    p = two_cards(p_total, 7 if seven_up else None)
    b = two_cards(b_total, 4)
    deal = [card_of(b[0], "S"), card_of(p[1], "H"), card_of(b[1], "D")] if seven_up else [
        card_of(p[0], "H"), card_of(b[0], "S"), card_of(p[1], "D"), card_of(b[1], "C")]
    t = Trace().new_shoe(variant=variant).burn(*BURN3).game(*deal, *third).end()
    return t.games()[0]


@pytest.mark.parametrize("variant", ["standard", "super6", "7up"])
@pytest.mark.parametrize("b_total", range(8))
@pytest.mark.parametrize("p3", range(10))
def test_banker_after_player_drew(variant, b_total, p3):
    # Player total 2 draws; Banker acts on its total and Player's third card.
    g = play(variant, 2, b_total, [card_of(p3, "S"), "9H"])
    draws = p3 in BANKER_DRAWS[b_total]
    assert len(g["banker"]) == (3 if draws else 2)
    assert len(g["player"]) == (2 if variant == "7up" else 3)
    assert g["status"] == "complete"
    assert ("UNNEEDED_DRAW" in [f["code"] for f in g["flags"]]) == (not draws)


@pytest.mark.parametrize("variant", ["standard", "super6", "7up"])
@pytest.mark.parametrize("p_total", range(10))
@pytest.mark.parametrize("b_total", range(10))
def test_first_four_cards(variant, p_total, b_total):
    g = play(variant, p_total, b_total, ["9S", "9H"])
    natural = p_total >= 8 or b_total >= 8
    player_draws = not natural and p_total <= 5
    banker_draws_when_player_stands = not natural and not player_draws and b_total <= 5
    n_player = len(g["player"]) + (1 if variant == "7up" else 0)
    assert n_player == (3 if player_draws else 2)
    if not player_draws:
        assert len(g["banker"]) == (3 if banker_draws_when_player_stands else 2)
    assert g["natural"] == natural
    assert g["player_total"] is not None and g["status"] == "complete"
