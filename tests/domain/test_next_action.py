"""What the dealer's display is told to do next, card by card."""

from dealer_assist.domain.next_action import next_action
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.trace import read_events
from tests.tracebuild import Trace


def steps(t: Trace, hide: bool = False) -> list[tuple[str, tuple[str, ...]]]:
    m = TableMachine()
    out = []
    for _, e in read_events(t.lines()):
        m.apply(e)
        out.append(tuple(next_action(m, hide_unrevealed=hide)))
    return out


def test_a_whole_game_with_both_draws():
    t = Trace().new_shoe().cards("7S").cards(*[r + "H" for r in "2345678"]).close()
    t.cards("2H", "3S", "2D", "3C", "5S", "9C")
    got = [s[0] for s in steps(t)]
    assert got[:3] == ["burn: turn up the first card", "burn 7 more cards", "burn 6 more cards"]
    assert got[8] == "burn complete: close bets for game 1"
    assert got[9:14] == ["deal Player's first card", "deal Banker's first card",
                         "deal Player's second card", "deal Banker's second card", "PLAYER DRAWS"]
    # Player 4 drew a 5 (9); Banker 6 stands on a 5.
    assert got[14] == "Player wins 9 to 6"
    assert got[15] == "Player wins 9 to 6"  # the 9C is a surplus card: the result stands


def test_banker_draws_after_player_stands():
    t = Trace().new_shoe().cards("2S", "KS", "KH").close().cards("3H", "2S", "4D", "3C")
    headline, notes = steps(t)[-1]
    assert headline == "BANKER DRAWS" and notes == ("PLAYER STANDS",)
    t.cards("9D")
    headline, notes = steps(t)[-1]
    assert headline == "Player wins 7 to 4" and "close bets for game 2" in notes


def test_natural_and_stands_are_said():
    t = Trace().new_shoe().cards("2S", "KS", "KH").close().cards("9H", "TS", "KD", "2C")
    headline, notes = steps(t)[-1]
    assert headline == "Player wins 9 to 2" and notes[0] == "natural 9: both stand"
    t = Trace().new_shoe().cards("2S", "KS", "KH").close().cards("3H", "4S", "4D", "3C")
    headline, notes = steps(t)[-1]
    assert headline == "Tie 7 to 7" and notes[:2] == ("PLAYER STANDS", "BANKER STANDS")


def test_last_game_and_shoe_finished():
    t = Trace().new_shoe().cards("2S", "KS", "KH").close().cards("9H", "TS", "KD", "2C").cut("blue")
    assert "next game is the last game of the shoe" in steps(t)[-1][1]
    t.close().cards("9C", "TD", "KC", "2D")
    assert "shoe finished" in steps(t)[-1][1]
    t.end()
    assert steps(t)[-1][0] == "load a new shoe"


def test_burn_after_each_game_is_asked_for():
    t = Trace().new_shoe(burn_after_each_game=True).cards("2S", "KS", "KH").close()
    t.cards("9H", "TS", "KD", "2C")
    assert "burn one card" in steps(t)[-1][1]
    t.cards("5D")
    assert "close bets for game 2" in steps(t)[-1][1]


def test_public_display_hides_what_unrevealed_cards_imply():
    t = Trace().new_shoe().cards("2S", "KS", "KH").close().cards("2H", "3S", "2D", "3C")
    assert steps(t, hide=True)[-1][0] == "open the cards"
    t.ev("dealer", "reveal", side="player")
    assert steps(t, hide=True)[-1][0] == "open the cards"
    t.ev("dealer", "reveal", side="banker")
    assert steps(t, hide=True)[-1][0] == "PLAYER DRAWS"
    t.cards("5S", "9C")  # Player 9; Banker 6 stands on a 5, then a surplus card
    assert steps(t, hide=True)[-1][0] == "open the cards"
    t.seen("5S", "player3")
    assert steps(t, hide=True)[-1][0] == "Player wins 9 to 6"
