"""What the overhead camera sees, checked against what the shoe dealt.

A sighting (`card_seen`: a card in a zone, face up or down) is looked up in the games whose
cards may lie on the layout: the game being dealt, the game just completed, and the next
game's early cards. A card in the wrong box is WRONG_POSITION; a card face up reveals its
position, and face up before its game's bets closed it is EXPOSED_DURING_BETTING; a card the
shoe did not deal there is CARD_MISMATCH (not where the shoe's card is unreadable: that is
the camera reading it). Each is raised once per card and zone (the same detail), however
often the camera repeats itself.

A card leaving the view (`card_lost`) of a game still in play is DROPPED_OPENED if it was
opened, CARD_OUT_OF_VIEW if not; the cards of a complete game, all revealed, are being
collected: no flag. The discard rack and the new-shoe burn raise nothing.

These are the table machine's handlers (domain/table.py's TRANSITIONS): each takes the
machine, as its methods do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dealer_assist.domain.events import CardLost, CardSeen
from dealer_assist.domain.game import UNREADABLE, Game
from dealer_assist.domain.phases import BURN, DEALING
from dealer_assist.domain.rules import POSITION_OF_ZONE

if TYPE_CHECKING:
    from dealer_assist.domain.table import TableMachine


def games_on_layout(table: TableMachine) -> list[Game]:
    """Games whose cards may lie on the layout: being dealt, just completed, dealt early."""
    shoe = table.shoe
    assert shoe is not None
    games = []
    if shoe.current is not None:
        games.append(shoe.current)
        if table.phase == DEALING and shoe.current.number > 1:
            games.append(shoe.games[shoe.current.number - 2])
    if shoe.early is not None:
        games.append(shoe.early)
    return games


def card_seen(table: TableMachine, e: CardSeen) -> None:
    """The camera saw a card in a zone (face up or down)."""
    if e.zone == "discard" or table.phase == BURN or e.card is None:
        return
    pos = POSITION_OF_ZONE[e.zone]
    games = games_on_layout(table)
    for game in games:
        at = game.position_of(e.card, seen_at=pos)
        if at is None:
            continue
        if at != pos:
            table.flag(game, "WRONG_POSITION",
                       f"{e.card} belongs at {at} but lies in {e.zone}", once=True)
        if e.face == "up":
            game.reveal((at,))
            if game is table.shoe.early:  # type: ignore[union-attr]
                table.flag(game, "EXPOSED_DURING_BETTING",
                           f"{e.card} ({at}) lay face up before bets closed", once=True)
        return
    if not games:
        return
    current = games[0]
    if dict(current.cards).get(pos) == UNREADABLE:
        return
    table.flag(current, "CARD_MISMATCH",
               f"the camera saw {e.card} in {e.zone}; the shoe dealt "
               f"{dict(current.cards).get(pos, 'no card there')}", once=True)


def card_lost(table: TableMachine, e: CardLost) -> None:
    """A card left the camera's view."""
    if e.zone == "discard" or table.phase == BURN:
        return
    games = games_on_layout(table)
    pos = POSITION_OF_ZONE[e.zone]
    for game in games:
        at = game.position_of(e.card, seen_at=pos) if e.card else (pos if pos in dict(game.cards) else None)
        if at is None:
            continue
        collected = game.complete and all(p in game.revealed for p, _ in game.cards)
        if collected or (game is not table.shoe.current and game is not table.shoe.early):  # type: ignore[union-attr]
            return
        card = dict(game.cards)[at]
        if e.opened:
            table.flag(game, "DROPPED_OPENED", f"{card} ({at}) was opened and left the camera's view")
        else:
            table.flag(game, "CARD_OUT_OF_VIEW", f"{card} ({at}) left the camera's view unopened")
        return
