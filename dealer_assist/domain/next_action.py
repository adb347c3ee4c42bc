"""What must happen next at the table, for the dealer's display.

`next_action(machine)` reads the machine's state and says it in the words of the table:
"burn 7 more cards", "deal Player's first card", "PLAYER DRAWS", "BANKER STANDS",
"Banker wins 7 to 5", "last game of the shoe", "shoe finished".

With `hide_unrevealed` (the public display), nothing that follows from a card's value is
said before that card is revealed: the shoe knows the result before the squeeze, the table
must not.
"""

from __future__ import annotations

from typing import NamedTuple

from dealer_assist.domain.game import Game
from dealer_assist.domain.phases import BETWEEN, BURN, DEALING, NO_SHOE
from dealer_assist.domain.rules import hand_total
from dealer_assist.domain.table import TableMachine

ORDINAL = {"1": "first", "2": "second", "3": "third"}
SIDE = {"P": "Player", "B": "Banker"}


class NextAction(NamedTuple):
    headline: str
    notes: tuple[str, ...] = ()


def _all_revealed(game: Game) -> bool:
    return all(pos in game.revealed for pos, _ in game.cards)


def _stands(game: Game) -> list[str]:
    """The stand calls a dealer announces once the first four cards are known."""
    p, b = game.player_values, game.banker_values
    if len(p) < 2 or len(b) < 2 or None in p or None in b:
        return []
    p2, b2 = hand_total(p[:2]), hand_total(b[:2])  # type: ignore[arg-type]
    if max(p2, b2) >= 8:
        return [f"natural {max(p2, b2)}: both stand"]
    calls = [] if len(p) > 2 else ["PLAYER STANDS"]
    if game.complete and len(b) == 2:
        calls.append("BANKER STANDS")
    return calls


def _result(game: Game) -> str:
    if not game.known:
        return "result unknown: an unreadable card needs a supervisor"
    p, b = hand_total(game.player_values), hand_total(game.banker_values)  # type: ignore[arg-type]
    if p == b:
        return f"Tie {p} to {b}"
    return f"Player wins {p} to {b}" if p > b else f"Banker wins {b} to {p}"


def _dealing(game: Game, hide: bool) -> NextAction:
    pos = game.expect
    assert pos is not None
    n = len(game.cards)
    if pos[1] in "12" and n < 4:
        return NextAction(f"deal {SIDE[pos[0]]}'s {ORDINAL[pos[1]]} card")
    if hide and not _all_revealed(game):
        return NextAction("open the cards")
    draw = "PLAYER DRAWS" if pos == "P3" else "BANKER DRAWS"
    notes = tuple(_stands(game)) if game.expect_sure else ("an unreadable card: check the hand",)
    return NextAction(draw, notes)


def next_action(machine: TableMachine, hide_unrevealed: bool = False) -> NextAction:
    shoe = machine.shoe
    if shoe is None or machine.phase == NO_SHOE:
        return NextAction("load a new shoe")
    if machine.phase == BURN:
        if not shoe.burn:
            return NextAction("burn: turn up the first card")
        left = shoe.burn_remaining
        if left is None:
            return NextAction("burn: the first card was not read; call a supervisor")
        if left:
            return NextAction(f"burn {left} more card{'s' if left > 1 else ''}")
        return NextAction("burn complete: close bets for game 1")
    game = shoe.current
    assert game is not None
    held = ("bets closed early: complete this game first",) if shoe.held else ()
    if machine.phase == DEALING:
        action = _dealing(game, hide_unrevealed)
        return NextAction(action.headline, action.notes + held)
    assert machine.phase == BETWEEN
    notes: list[str] = []
    if shoe.finished:
        notes.append("shoe finished")
    elif game.last_game:
        notes.append("last game of the shoe")
    elif shoe.last_game == game.number + 1:
        notes.append("next game is the last game of the shoe")
    if not shoe.finished:
        burn_due = shoe.house.burn_after_each_game and game.between_cards == 0
        notes.append("burn one card" if burn_due else f"close bets for game {game.number + 1}")
    if hide_unrevealed and not _all_revealed(game):
        return NextAction("open the cards", tuple(notes))
    return NextAction(_result(game), tuple(_stands(game)) + tuple(notes))
