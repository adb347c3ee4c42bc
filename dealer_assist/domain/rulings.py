"""A supervisor's decision on a game, as the table machine applies it.

A decision names a game of the current shoe, or of the shoe named by its `shoe_id`; one for a
game that does not exist changes nothing and is reported. The latest ruling on a game wins:
`accept` and `correct` cover the flags raised before them (a flag raised after makes the
review pending again); `correct` replaces the game's physical cards, and a correction that
completes the game being dealt completes it (a held close may then start the next game).
`void_shoe` voids the named game and every later one of its shoe, and resolves their reviews.

This is the table machine's handler (domain/table.py's TRANSITIONS): it takes the machine, as
its methods do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dealer_assist.domain.events import DecisionMade
from dealer_assist.domain.phases import DEALING

if TYPE_CHECKING:
    from dealer_assist.domain.table import TableMachine


def decision(table: TableMachine, e: DecisionMade) -> None:
    """A supervisor's decision (any phase)."""
    shoe = table.shoe
    if e.shoe_id is not None:
        shoe = next((s for s in reversed(table.shoes) if s.shoe_id == e.shoe_id), None)
    game = shoe.game(e.game) if shoe else None
    if shoe is None or game is None:
        where = f"shoe {e.shoe_id}" if e.shoe_id else "the current shoe"
        table.problem(f"decision for game {e.game}, which {where} does not have")
        return
    if e.action == "void_shoe":
        shoe.void_from = min(shoe.void_from or e.game, e.game)
        for g in shoe.games[e.game - 1:]:
            g.voided_by_shoe = True
            g.decided_upto = len(g.flags)
    else:
        game.ruling = e.action
        game.decided_upto = len(game.flags)
        if e.action == "correct":
            game.replace_cards(e.player, e.banker)
    table.emit("decision_applied", game.number, e)
    if (e.action == "correct" and shoe is table.shoe and game is shoe.current
            and table.phase == DEALING and game.complete):
        table.complete(game)
