"""The correction proposed for each kind of flagged game."""

from dealer_assist.domain.proposal import propose
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import read_events
from tests.tracebuild import BURN3, Trace

NAT = ("9H", "TS", "KD", "2C")


def machine_of(t: Trace) -> TableMachine:
    m = TableMachine()
    for _, e in read_events(t.lines()):
        m.apply(e)
    return m


def proposals(t: Trace, game: int = 1):
    m = machine_of(t)
    return propose(m.shoe, m.shoe.games[game - 1])


def test_clean_game_needs_nothing():
    assert proposals(Trace().new_shoe().burn(*BURN3).game(*NAT)) == []


def test_unneeded_draw_is_accepted_with_the_card_set_aside():
    (p,) = proposals(Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D"))
    assert p.action == "accept" and "5D" in p.text and p.flag == "UNNEEDED_DRAW"


def test_missing_draw_still_open_asks_for_the_card():
    (p,) = proposals(Trace().new_shoe().burn(*BURN3).game("2H", "3S", "2D", "4C").end())
    assert p.action == "correct" and "P3" in p.text


def test_void_flags_come_first_and_a_decision_clears_them():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).seen("9H", "banker1").seen("QH", "player2")
    ps = proposals(t)
    assert [p.flag for p in ps] == ["CARD_MISMATCH", "WRONG_POSITION"] and ps[0].action == "void"
    assert proposals(t.decide(1, "accept")) == []


def test_short_burn_proposes_voiding_the_shoe():
    (p,) = proposals(Trace().new_shoe().burn("2S").game(*NAT))
    assert p.action == "void_shoe" and "burn" in p.text
