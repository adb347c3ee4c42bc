"""The system's own interruptions (table-trace.md, `interrupted`): a game the system cut short
and that did not continue is INTERRUPTED, naming the reason, never MISSING_DRAW; a game whose
shoe's cards keep coming simply continues. Every row of the rule, for every reason."""

import pytest

from dealer_assist.domain.events import INTERRUPT_REASONS, Interrupted, TraceError, parse_event
from dealer_assist.domain.flags import FLAGS, UNCHARGED, charged
from tests.tracebuild import BURN3, Trace, codes

#: Player 2H 2D = 4 draws, Banker 3S 4C = 7 stands: needs Player's third card.
P_DRAWS = ("2H", "3S", "2D", "4C")
#: Player 9H KD = 9, Banker TS 2C = 2: a natural, four cards, Player wins.
NAT = ("9H", "TS", "KD", "2C")
TS = "2026-11-29T10:00:00.000Z"


def mid_game(reason: str) -> Trace:
    """Game 1 dealt to its first two cards, then the system's interruption."""
    return Trace().new_shoe().burn(*BURN3).close().cards("2H", "3S") \
        .ev("system", "interrupted", reason=reason)


@pytest.mark.parametrize("reason", INTERRUPT_REASONS)
def test_a_game_that_continues_after_the_interruption_raises_no_flag(reason: str) -> None:
    t = mid_game(reason).cards("2D", "4C", "5S").game(*NAT).end()
    g1, g2 = t.games()
    assert g1["flags"] == [] and g1["status"] == "complete" and g1["review"] == "none"
    assert g1["player"] == ["2H", "2D", "5S"] and g2["flags"] == []


@pytest.mark.parametrize("ends", ["new shoe", "end shoe"])
@pytest.mark.parametrize("reason", INTERRUPT_REASONS)
def test_a_game_cut_short_is_interrupted_not_a_missing_draw(reason: str, ends: str) -> None:
    t = mid_game(reason)
    t = t.new_shoe("S2") if ends == "new shoe" else t.end()
    shoe = t.shoe()
    [g] = shoe["games"]
    assert codes(g["flags"]) == ["INTERRUPTED"]
    assert g["flags"][0] == {"code": "INTERRUPTED", "severity": "review",
                             "detail": f"game 1 was interrupted ({reason}) and did not continue"}
    assert g["status"] == "incomplete" and g["review"] == "pending"
    assert shoe["status"] == "finished"


@pytest.mark.parametrize("ends", ["new shoe", "end shoe"])
def test_without_an_interruption_the_short_game_is_a_missing_draw_as_before(ends: str) -> None:
    t = Trace().new_shoe().burn(*BURN3).game(*P_DRAWS)
    t = t.new_shoe("S2") if ends == "new shoe" else t.end()
    [g] = t.shoe()["games"]
    assert codes(g["flags"]) == ["MISSING_DRAW"] and "P3" in g["flags"][0]["detail"]


def test_a_game_missing_its_first_cards_is_interrupted_too() -> None:
    """Bets closed, then the system stopped before any card: the game never continued."""
    t = Trace().new_shoe().burn(*BURN3).close().ev("system", "interrupted", reason="restart")
    [g] = t.new_shoe("S2").shoe()["games"]
    assert codes(g["flags"]) == ["INTERRUPTED"] and g["cards"] == 0


def test_a_card_after_the_interruption_makes_the_game_the_dealers_again() -> None:
    """It continued: a draw then missed at the shoe's end is the dealer's MISSING_DRAW."""
    t = Trace().new_shoe().burn(*BURN3).close().cards("2H", "3S")
    t.ev("system", "interrupted", reason="shoe_link_lost").cards("2D", "4C").end()
    [g] = t.games()
    assert codes(g["flags"]) == ["MISSING_DRAW"]


@pytest.mark.parametrize("where", ["no shoe", "burn", "between games", "shoe finished"])
def test_an_interruption_with_no_game_being_dealt_flags_nothing(where: str) -> None:
    t = Trace()
    if where != "no shoe":
        t.new_shoe().burn(*BURN3[:1] if where == "burn" else BURN3)
    if where in ("between games", "shoe finished"):
        t.game(*NAT)
    if where == "shoe finished":
        t.cut("yellow")
    t.ev("system", "interrupted", reason="restart").new_shoe("S2").burn(*BURN3).game(*NAT).end()
    report = t.audit()
    assert "ignored" not in report  # the event means something in every phase
    flagged = [(s["shoe_id"], f["code"]) for s in report["shoes"]
               for f in s["flags"] + [f for g in s["games"] for f in g["flags"]]]
    assert [c for _, c in flagged if c not in ("BURN_SHORT", "LAST_GAME")] == []


def test_the_first_reason_stands_while_no_card_comes() -> None:
    t = mid_game("restart").ev("system", "interrupted", reason="shoe_link_lost").end()
    [g] = t.games()
    assert [f["detail"] for f in g["flags"]] == ["game 1 was interrupted (restart) and did not continue"]


def test_a_later_interruption_of_the_continued_game_names_its_own_reason() -> None:
    t = mid_game("restart").cards("2D").ev("system", "interrupted", reason="shoe_link_lost")
    [g] = t.end().games()
    assert [f["detail"] for f in g["flags"]] == [
        "game 1 was interrupted (shoe_link_lost) and did not continue"]


def test_an_interruption_of_an_earlier_game_does_not_reach_the_next_one() -> None:
    """Game 1 continued and completed; game 2, cut short by the dealer's end, is MISSING_DRAW."""
    t = mid_game("restart").cards("2D", "4C", "5S").game(*P_DRAWS).end()
    g1, g2 = t.games()
    assert g1["flags"] == [] and codes(g2["flags"]) == ["MISSING_DRAW"]


def test_a_held_close_after_the_interruption_is_the_dealers_missing_draw() -> None:
    """A bets_closed is the dealer's, not a card: the close while the game still needs P3 is
    MISSING_DRAW as ever; the game that then never continued is INTERRUPTED as well."""
    t = mid_game("shoe_link_lost").close().end()
    [g] = t.games()
    assert codes(g["flags"]) == ["MISSING_DRAW", "INTERRUPTED"]


def test_a_supervisor_decides_an_interrupted_game_like_any_other() -> None:
    t = mid_game("restart").end().decide(1, "void", shoe_id="S1")
    [g] = t.games()
    assert codes(g["flags"]) == ["INTERRUPTED"] and g["review"] == "resolved"
    assert g["status"] == "void"


def test_the_event_is_read_and_written_back_as_the_contract_says() -> None:
    obj = {"ts": TS, "src": "system", "type": "interrupted", "reason": "shoe_replaced"}
    event = parse_event(obj)
    assert event == Interrupted(TS, "system", "shoe_replaced") and event.as_dict() == obj
    for bad in ({}, {"reason": "power"}, {"reason": None}, {"reason": ["restart"]}):
        with pytest.raises(TraceError, match="'reason' must be one of restart, shoe_link_lost"):
            parse_event({"ts": TS, "src": "system", "type": "interrupted", **bad})


def test_interrupted_is_charged_to_no_dealer_and_every_other_flag_is() -> None:
    assert frozenset({"INTERRUPTED"}) == UNCHARGED
    assert charged(["INTERRUPTED", "MISSING_DRAW", "INTERRUPTED", "DATA_GAP"]) == \
        ["MISSING_DRAW", "DATA_GAP"]
    assert charged(sorted(FLAGS)) == sorted(set(FLAGS) - {"INTERRUPTED"})
