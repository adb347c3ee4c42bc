"""Supervisor decisions: accept, void, correct, void_shoe."""

from tests.tracebuild import BURN3, Trace, codes

NAT = ("9H", "TS", "KD", "2C")
P_DRAWS = ("2H", "3S", "2D", "4C")


def test_accept_resolves_review_and_overrides_a_void_flag():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).seen("QH", "player1")
    assert t.games()[0]["status"] == "void"
    g = t.decide(1, "accept").games()[0]
    assert g["review"] == "resolved" and g["status"] == "complete" and g["winner"] == "player"
    assert codes(g["flags"]) == ["CARD_MISMATCH"]  # the flag stays on record


def test_a_flag_after_the_decision_is_pending_again():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).seen("9H", "banker1").decide(1, "accept")
    t.seen("QH", "player2")
    g = t.games()[0]
    assert g["review"] == "pending" and g["status"] == "void"


def test_void():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D").decide(1, "void").game(*NAT)
    g1, g2 = t.games()
    assert g1["status"] == "void" and g1["winner"] is None and g1["winning_bets"] == []
    assert g1["review"] == "resolved" and g2["status"] == "complete"


def test_correct_replaces_the_cards_and_the_result_follows():
    t = Trace().new_shoe().burn(*BURN3).game(*P_DRAWS).end()
    g = t.games()[0]
    assert g["status"] == "incomplete"
    t.decide(1, "correct", player=["2H", "2D", "4S"], banker=["3S", "4C"])
    g = t.games()[0]
    assert (g["player"], g["banker"]) == (["2H", "2D", "4S"], ["3S", "4C"])
    assert (g["player_total"], g["banker_total"], g["winner"]) == (8, 7, "player")
    assert g["status"] == "complete" and g["review"] == "resolved" and g["cards"] == 5
    assert {"bet": "big", "pays": "0.54:1"} in g["winning_bets"]


def test_correct_accepts_10_spelling_and_7up_fixed_seven():
    t = Trace().new_shoe(variant="7up").burn(*BURN3).game("3S", "2D", "4C").ev("shoe", "gap", missing=1)
    t.decide(1, "correct", player=["10D"], banker=["3S", "4C"])
    g = t.games()[0]
    assert g["player"] == ["TD"] and g["player_total"] == 7 and g["banker_total"] == 7
    assert g["winner"] == "tie" and {"bet": "tie", "pays": "9:1"} in g["winning_bets"]


def test_correct_completes_a_game_holding_bets_closed():
    t = Trace().new_shoe().burn(*BURN3).game(*P_DRAWS).close()
    t.decide(1, "correct", player=["2H", "2D", "5S"], banker=["3S", "4C"]).cards(*NAT)
    g1, g2 = t.games()
    assert g1["winner"] == "player" and g2["player"] == ["9H", "KD"] and g2["status"] == "complete"


def test_void_shoe_from_a_game_on():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).game(*NAT).cards("5D").game(*NAT)
    t.decide(2, "void_shoe").game(*NAT)
    s = t.shoe()
    assert s["status"] == "void"
    assert [g["status"] for g in s["games"]] == ["complete", "void", "void", "void"]
    assert s["games"][1]["review"] == "resolved"


def test_decision_for_a_game_that_does_not_exist_is_reported():
    report = Trace().new_shoe().burn(*BURN3).game(*NAT).decide(7, "accept").audit()
    assert report["ignored"] and "game 7" in report["ignored"][0]["problem"]
    assert report["ignored"][0]["line"] == 10


def test_decision_after_end_shoe_applies_to_that_shoe():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D").end().decide(1, "accept")
    assert t.games()[0]["review"] == "resolved"


def test_decision_names_an_earlier_shoe():
    t = Trace().new_shoe("A").burn(*BURN3).game(*NAT).cards("5D").end()
    t.new_shoe("B").burn(*BURN3).game(*NAT).decide(1, "void", shoe_id="A")
    report = t.audit()
    assert report["shoes"][0]["games"][0]["status"] == "void"
    assert report["shoes"][1]["games"][0]["status"] == "complete"
