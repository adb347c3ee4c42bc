"""The correction proposed for each kind of flagged game; the hand a supervisor may correct to."""

import pytest

from dealer_assist.domain.flags import FLAGS, NEEDS_DECISION
from dealer_assist.domain.proposal import propose
from dealer_assist.domain.rules import HandError, check_hand
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import read_events
from tests.tracebuild import BURN3, Trace

NAT = ("9H", "TS", "KD", "2C")
P_DRAWS = ("2H", "3S", "2D", "4C")


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


def fresh() -> Trace:
    return Trace().new_shoe().burn(*BURN3)


#: For every flag a game can wait on: a game that carries it, and what the rules propose first.
FIRST_PROPOSAL = {
    "BURN_MISSING": (Trace().new_shoe(burn_after_each_game=True).burn(*BURN3).game(*NAT)
                     .game(*NAT), 2, "accept", "a procedural error: it changes no result"),
    "UNNEEDED_DRAW": (fresh().game(*NAT).cards("5D"), 1, "accept",
                      "the result of game 1 stands; 5D is set aside as the next game's burn"),
    "EARLY_DEAL": (fresh().game(*NAT).cards("5D", "6D").close().cards("TS", "KD", "2C"), 2,
                   "accept",
                   "the cards dealt before bets closed keep their positions in deal order"),
    "MISSING_DRAW": (fresh().game(*P_DRAWS).close().cards("5S"), 1, "accept",
                     "the card drawn after the close completed game 1 by the rules: the result "
                     "stands as read"),
    "WRONG_POSITION": (fresh().game(*NAT).seen("9H", "banker1"), 1, "accept",
                       "each card counts at the position the rules give it, wherever it lies"),
    "CARD_MISMATCH": (fresh().game(*NAT).seen("QH", "player1"), 1, "void",
                      "void game 1, or correct it to the cards on the table"),
    "EXPOSED_DURING_BETTING": (fresh().game(*NAT).cards("5D", "6D").seen("6D", "player1").close()
                               .cards("TS", "KD", "2C"), 2, "void",
                               "void game 2; management may also cancel the shoe"),
    "DROPPED_OPENED": (fresh().close().cards("9H", "TS").seen("9H", "player1")
                       .lost("player1", opened=True, card="9H").cards("KD", "2C"), 1, "void",
                       "void game 1 and deal it again with new cards"),
    "DEAL_AFTER_LAST_GAME": (fresh().game(*NAT).cut("yellow").game(*NAT), 2, "void",
                             "void game 2: it was dealt after the last game"),
    "FOREIGN_CARD": (Trace().new_shoe(decks=1).burn(*BURN3).game("9H", "TS", "9H", "2C"), 1,
                     "void", "void game 1 and inspect the shoe"),
    "UNREADABLE_CARD": (fresh().close().cards("9H", "TS").ev("shoe", "unreadable").cards("2C"), 1,
                        "correct", "enter the card at P2 from the table"),
    "DATA_GAP": (fresh().close().cards("9H").ev("shoe", "gap", missing=2).cards("TS", "KD", "2C"),
                 1, "correct", "check the cards on the table against the shoe's reading; correct "
                 "any card the link lost, or accept"),
    "INTERRUPTED": (fresh().close().cards("9H", "TS").ev("system", "interrupted", reason="restart")
                    .end(), 1, "correct",
                    "enter the cards of game 1 from the table, or void game 1"),
}


@pytest.mark.parametrize("code", sorted(FIRST_PROPOSAL))
def test_each_flag_proposes_its_correction_told_with_the_game(code: str) -> None:
    trace, game, action, text = FIRST_PROPOSAL[code]
    assert tuple(proposals(trace, game)[0]) == (action, text, code)


def test_every_flag_a_game_can_wait_on_has_a_case_above():
    on_games = {c for c, r in FLAGS.items() if r.severity in NEEDS_DECISION} - {"BURN_EXCESS"}
    assert set(FIRST_PROPOSAL) == on_games


@pytest.mark.parametrize("player, banker, seven_up", [
    (("9H", "KD"), ("TS", "2C"), False),  # a natural: four cards
    (("2H", "2D", "4S"), ("3S", "4C"), False),  # Player draws, Banker's 7 stands
    (("2H",), ("3S", "4C"), True),  # 7up: the fixed 7 and a 2 are a natural
])
def test_a_hand_the_rules_complete_passes(player, banker, seven_up) -> None:
    check_hand(player, banker, seven_up)


@pytest.mark.parametrize("player, banker, seven_up, problem", [
    (("2H", "2D"), ("3S", "4C"), False, r"the rules give Player a third card \(P3\)"),
    (("9H", "KD", "2D"), ("TS", "2C"), False, r"the rules give Player no third card \(P3\)"),
    (("9H", "KD"), ("TS", "2C", "3C"), False, r"the rules give Banker no third card \(B3\)"),
    (("KH",), ("3S", "2C"), True, r"the rules give Banker a third card \(B3\)"),
    (("2H", "3H"), ("3S", "4C"), True, r"the rules give Player no third card \(P3\)"),
    (("9H", "KD"), ("TS",), False, "Banker has 2 or 3 cards from the shoe, not 1"),
    ((), ("TS", "2C"), True, "Player has 1 or 2 cards from the shoe, not 0"),
])
def test_a_hand_the_rules_do_not_complete_is_refused(player, banker, seven_up, problem) -> None:
    with pytest.raises(HandError, match=problem):
        check_hand(player, banker, seven_up)
