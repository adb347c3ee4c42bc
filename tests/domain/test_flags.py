"""A scenario for every flag code of table-trace.md: the code, where it sits, and the cards."""

from dealer_assist.domain.flags import FLAGS, NEEDS_DECISION
from tests.tracebuild import BURN3, Trace, codes

# Player 9H KD = 9, Banker TS 2C = 2: a natural, four cards, Player wins.
NAT = ("9H", "TS", "KD", "2C")
# Player 2H 2D = 4 draws, Banker 3S 4C = 7 stands: needs Player's third card.
P_DRAWS = ("2H", "3S", "2D", "4C")


def test_clean_game():
    g = Trace().new_shoe().burn(*BURN3).game(*NAT).end().games()[0]
    assert (g["player"], g["banker"]) == (["9H", "KD"], ["TS", "2C"])
    assert (g["player_total"], g["banker_total"], g["winner"]) == (9, 2, "player")
    assert g["natural"] and g["cards"] == 4 and g["status"] == "complete"
    assert g["flags"] == [] and g["review"] == "none"
    assert g["winning_bets"] == [{"bet": "player", "pays": "1:1"}, {"bet": "small", "pays": "1.5:1"}]


def test_burn_short_voids_the_shoe():
    s = Trace().new_shoe().burn("2S", "KS").game(*NAT).end().shoe()
    assert codes(s["flags"]) == ["BURN_SHORT"] and s["flags"][0]["severity"] == "shoe_void"
    assert s["status"] == "void" and s["burn"] == {"cards": ["2S", "KS"], "required": 3}
    g = s["games"][0]
    assert g["status"] == "void" and g["winner"] is None and g["player"] == ["9H", "KD"]


def test_no_burn_at_all_is_short():
    s = Trace().new_shoe().game(*NAT).shoe()
    assert codes(s["flags"]) == ["BURN_SHORT"] and s["status"] == "void"


def test_burn_excess_is_reviewed_not_void():
    s = Trace().new_shoe().burn(*BURN3, "QD").game(*NAT).shoe()
    assert codes(s["flags"]) == ["BURN_EXCESS"] and s["flags"][0]["severity"] == "review"
    assert s["status"] == "open" and s["games"][0]["status"] == "complete"
    assert s["burn"]["cards"] == [*BURN3, "QD"]


def test_king_burns_ten_more_and_ace_setting():
    s = Trace().new_shoe().burn("KS", *[r + "H" for r in "23456789TJ"]).game(*NAT).shoe()
    assert s["burn"]["required"] == 11 and s["flags"] == []
    s = Trace().new_shoe(ace_burns=11).burn("AS", "2H", "3H", "4H").game(*NAT).shoe()
    assert s["burn"]["required"] == 12 and codes(s["flags"]) == ["BURN_SHORT"]


def test_burn_missing_after_a_game():
    t = Trace().new_shoe(burn_after_each_game=True).burn(*BURN3).game(*NAT)
    t.game("8H", "TD", "QC", "JS")  # no burn card before game 2
    t.cards("5D").game("9C", "TC", "KC", "2S")  # burned before game 3
    games = t.games()
    assert [codes(g["flags"]) for g in games] == [[], ["BURN_MISSING"], []]
    assert games[1]["review"] == "pending" and games[2]["set_aside"] == []


def test_one_unneeded_card_is_set_aside():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D").game(*NAT)
    g1, g2 = t.games()
    assert g1["set_aside"] == ["5D"] and codes(g1["flags"]) == ["UNNEEDED_DRAW"]
    assert g1["review"] == "pending" and g1["winner"] == "player"  # result stands
    assert g2["player"] == ["9H", "KD"] and g2["flags"] == []


def test_two_unneeded_cards_second_is_next_players_first():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D", "6D").close().cards("TS", "KD", "2C")
    g1, g2 = t.games()
    assert g1["set_aside"] == ["5D"] and codes(g1["flags"]) == ["UNNEEDED_DRAW"]
    assert codes(g2["flags"]) == ["EARLY_DEAL"]
    assert (g2["player"], g2["banker"]) == (["6D", "KD"], ["TS", "2C"])
    assert g2["player_total"] == 6 and g2["banker_total"] == 2


def test_with_house_burn_first_between_card_is_the_burn():
    t = Trace().new_shoe(burn_after_each_game=True).burn(*BURN3).game(*NAT).cards("5D", "6D")
    t.game(*NAT)
    g1, g2 = t.games()
    assert g1["set_aside"] == ["6D"] and codes(g1["flags"]) == ["UNNEEDED_DRAW"]
    assert g2["flags"] == []


def test_missing_draw_holds_the_next_bets_closed():
    t = Trace().new_shoe().burn(*BURN3).game(*P_DRAWS).close().cards("5S").cards(*NAT)
    g1, g2 = t.games()
    assert codes(g1["flags"]) == ["MISSING_DRAW"]
    assert g1["player"] == ["2H", "2D", "5S"] and g1["player_total"] == 9 and g1["winner"] == "player"
    assert g2["player"] == ["9H", "KD"] and g2["status"] == "complete" and g2["flags"] == []


def test_missing_draw_at_end_of_shoe():
    s = Trace().new_shoe().burn(*BURN3).game(*P_DRAWS).end().shoe()
    g = s["games"][0]
    assert codes(g["flags"]) == ["MISSING_DRAW"] and "P3" in g["flags"][0]["detail"]
    assert g["status"] == "incomplete" and g["winner"] is None and s["status"] == "finished"


def test_multi_pull_takes_positions_in_order():
    t = Trace().new_shoe().burn(*BURN3).close().cards("9H").cards("TS", "KD", multi=True).cards("2C")
    g = t.games()[0]
    assert (g["player"], g["banker"]) == (["9H", "KD"], ["TS", "2C"])
    assert codes(g["flags"]) == ["MULTI_PULL"] and g["flags"][0]["severity"] == "info"
    assert "KD (P2)" in g["flags"][0]["detail"] and g["review"] == "none"


def test_wrong_position_from_the_camera():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).seen("9H", "banker1").seen("9H", "banker1")
    g = t.games()[0]
    assert codes(g["flags"]) == ["WRONG_POSITION"]  # once, however often it is seen
    assert "P1" in g["flags"][0]["detail"] and g["review"] == "pending" and g["status"] == "complete"


def test_a_code_dealt_twice_to_one_game_lies_right_in_either_of_its_positions():
    # eight decks: one game can hold the ace of spades twice (P1 and B1, the deal's order)
    t = Trace().new_shoe().burn(*BURN3).game("AS", "AS", "8C", "6D")
    t.seen("AS", "banker1").seen("AS", "player1").seen("AS", "banker1", face="down")
    assert t.games()[0]["flags"] == []
    t.seen("AS", "player2")
    assert codes(t.games()[0]["flags"]) == ["WRONG_POSITION"]


def test_card_mismatch_voids_the_game():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).seen("QH", "player1")
    g = t.games()[0]
    assert codes(g["flags"]) == ["CARD_MISMATCH"] and "9H" in g["flags"][0]["detail"]
    assert g["status"] == "void" and g["winner"] is None and g["review"] == "pending"


def test_camera_agreeing_raises_nothing():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT)
    for card, zone in zip(NAT, ["player1", "banker1", "player2", "banker2"], strict=True):
        t.seen(card, zone).seen(card, "discard")
    assert t.games()[0]["flags"] == []


def test_exposed_early_card_voids_the_next_game():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D", "6D").seen("6D", "player1")
    t.close().cards("TS", "KD", "2C")
    g1, g2 = t.games()
    assert codes(g2["flags"]) == ["EARLY_DEAL", "EXPOSED_DURING_BETTING"]
    assert g2["status"] == "void" and g2["player"][0] == "6D"
    assert g1["status"] == "complete"


def test_face_down_early_card_is_not_exposed():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cards("5D", "6D").seen("6D", "player1", "down")
    assert codes(t.games()[1]["flags"]) == ["EARLY_DEAL"]


def test_dropped_opened_card_voids():
    t = Trace().new_shoe().burn(*BURN3).close().cards("9H", "TS").seen("9H", "player1")
    t.lost("player1", opened=True, card="9H").cards("KD", "2C")
    g = t.games()[0]
    assert codes(g["flags"]) == ["DROPPED_OPENED"] and "9H (P1)" in g["flags"][0]["detail"]
    assert g["status"] == "void"


def test_unopened_card_out_of_view_is_info():
    t = Trace().new_shoe().burn(*BURN3).close().cards("9H", "TS").lost("banker1", opened=False)
    t.cards("KD", "2C")
    g = t.games()[0]
    assert codes(g["flags"]) == ["CARD_OUT_OF_VIEW"] and "TS (B1)" in g["flags"][0]["detail"]
    assert g["status"] == "complete" and g["review"] == "none"


def test_collecting_revealed_cards_is_not_a_drop():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).ev("dealer", "reveal")
    for zone in ("player1", "banker1", "player2", "banker2"):
        t.lost(zone, opened=True)
    assert t.games()[0]["flags"] == []


def test_blue_card_during_a_game_makes_it_last():
    t = Trace().new_shoe().burn(*BURN3).close().cards("9H", "TS").cut("blue").cards("KD", "2C")
    s = t.shoe()
    g = s["games"][0]
    assert g["last_game"] and codes(g["flags"]) == ["LAST_GAME"] and s["status"] == "finished"
    assert g["player"] == ["9H", "KD"]  # the cut card takes no position


def test_blue_card_between_games_makes_the_next_last():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cut("blue")
    assert t.shoe()["status"] == "open"
    s = t.game(*NAT).shoe()
    assert [g["last_game"] for g in s["games"]] == [False, True]
    assert codes(s["games"][1]["flags"]) == ["LAST_GAME"] and s["status"] == "finished"


def test_yellow_card_between_games_ends_the_shoe():
    s = Trace().new_shoe().burn(*BURN3).game(*NAT).cut("yellow").shoe()
    assert s["status"] == "finished" and s["games"][0]["last_game"]


def test_yellow_card_during_a_game_makes_it_last():
    s = Trace().new_shoe().burn(*BURN3).close().cards("9H").cut("yellow").cards("TS", "KD", "2C").shoe()
    assert s["games"][0]["last_game"] and s["status"] == "finished"


def test_deal_after_the_last_game_is_void():
    t = Trace().new_shoe().burn(*BURN3).game(*NAT).cut("yellow").game(*NAT)
    g1, g2 = t.games()
    assert codes(g2["flags"]) == ["DEAL_AFTER_LAST_GAME"] and g2["status"] == "void"
    assert g1["status"] == "complete" and t.shoe()["status"] == "finished"


def test_foreign_card():
    t = Trace().new_shoe(decks=1).burn(*BURN3).game("9H", "TS", "9H", "2C")
    g = t.games()[0]
    assert codes(g["flags"]) == ["FOREIGN_CARD"] and "9H is copy 2" in g["flags"][0]["detail"]
    assert g["status"] == "void"


def test_unreadable_card_takes_its_position():
    t = Trace().new_shoe().burn(*BURN3).close().cards("9H", "TS").ev("shoe", "unreadable").cards("2C")
    g = t.games()[0]
    assert codes(g["flags"]) == ["UNREADABLE_CARD"] and "P2" in g["flags"][0]["detail"]
    assert g["player"] == ["9H", "??"] and g["player_total"] is None and g["winner"] is None
    assert g["status"] == "incomplete" and g["review"] == "pending"


def test_unreadable_card_does_not_claim_a_missing_draw():
    t = Trace().new_shoe().burn(*BURN3).close().cards("2H", "3S").ev("shoe", "unreadable")
    t.cards("4C").close().cards(*NAT)
    g1, g2 = t.games()
    assert codes(g1["flags"]) == ["UNREADABLE_CARD"]
    assert g2["player"] == ["9H", "KD"] and g2["flags"] == []


def test_data_gap():
    t = Trace().new_shoe().burn(*BURN3).close().cards("9H").ev("shoe", "gap", missing=2)
    g = t.cards("TS", "KD", "2C").games()[0]
    assert codes(g["flags"]) == ["DATA_GAP"] and "2 frame(s)" in g["flags"][0]["detail"]
    assert g["review"] == "pending" and g["status"] == "complete"


def test_cut_cards_during_the_burn():
    s = Trace().new_shoe().burn("2S").cut("blue").burn("KS", "KH").game(*NAT).game(*NAT).shoe()
    assert [g["last_game"] for g in s["games"]] == [True, False]
    assert codes(s["games"][1]["flags"]) == ["DEAL_AFTER_LAST_GAME"]
    s = Trace().new_shoe().burn("2S").cut("yellow").shoe()
    assert s["status"] == "finished" and s["games"] == []
    s = Trace().new_shoe().burn("2S").cut("yellow").burn("KS", "KH").game(*NAT).shoe()
    assert codes(s["games"][0]["flags"]) == ["DEAL_AFTER_LAST_GAME"] and s["games"][0]["status"] == "void"


#: The flag table of table-trace.md: code and severity are the contract.
SPEC_SEVERITY = {
    "BURN_SHORT": "shoe_void", "BURN_EXCESS": "review", "BURN_MISSING": "review",
    "UNNEEDED_DRAW": "review", "EARLY_DEAL": "review", "MISSING_DRAW": "review",
    "MULTI_PULL": "info", "WRONG_POSITION": "review", "CARD_MISMATCH": "void",
    "EXPOSED_DURING_BETTING": "void", "DROPPED_OPENED": "void", "CARD_OUT_OF_VIEW": "info",
    "LAST_GAME": "info", "DEAL_AFTER_LAST_GAME": "void", "FOREIGN_CARD": "void",
    "UNREADABLE_CARD": "review", "DATA_GAP": "review", "INTERRUPTED": "review",
}


def test_the_table_holds_every_code_of_the_spec_with_its_severity():
    assert {code: rule.severity for code, rule in FLAGS.items()} == SPEC_SEVERITY


def test_every_flag_has_the_rule_to_show_the_supervisor():
    assert all(rule.rule.endswith(".") and rule.rule[0].isupper() for rule in FLAGS.values())


def test_a_flag_that_waits_for_a_decision_proposes_a_correction_and_no_other_does():
    for code, rule in FLAGS.items():
        needs = rule.severity in NEEDS_DECISION
        assert (rule.correction is not None) == needs, code
        if rule.correction:
            assert rule.correction.action in ("accept", "correct", "void"), code
