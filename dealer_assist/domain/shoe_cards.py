"""Cards out of the shoe that take no place in a game's hand, and the flags any card raises.

Outside a hand: in BURN a card is the new-shoe burn (its face-up first card says how many
more it needs: BURN_EXCESS past that); in BETWEEN, the burn after the game where the house
burns one, then surplus: the first set aside on the game it followed (UNNEEDED_DRAW), the
next ones dealt early into the next game (EARLY_DEAL), taking its positions in deal order.

Any card: an unreadable one is UNREADABLE_CARD (it takes its position as `??`), one pulled out
together with the card before it MULTI_PULL, and a copy more than the shoe's decks hold
FOREIGN_CARD, counted over every card out of the shoe, burn included (on the game the card
went into; a burn or set-aside card concerns no game and the flag sits on the shoe).

These are the table machine's handlers (domain/table.py's TRANSITIONS) and helpers: each
takes the machine, as its methods do.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from dealer_assist.domain.cards import burn_value
from dealer_assist.domain.events import CardDealt, UnreadableDealt
from dealer_assist.domain.game import UNREADABLE, Game

if TYPE_CHECKING:
    from dealer_assist.domain.table import TableMachine


def burn_card(table: TableMachine, e: CardDealt | UnreadableDealt) -> None:
    """A card of the new-shoe burn (BURN)."""
    shoe = table.shoe
    assert shoe is not None
    code = e.card if isinstance(e, CardDealt) else UNREADABLE
    shoe.burn.append(code)
    table.emit("card_placed", None, ("burn", code))
    count(table, code, None)
    if len(shoe.burn) == 1:
        if code == UNREADABLE:
            table.flag(None, "UNREADABLE_CARD", "the burn's face-up card could not be read")
        else:
            shoe.burn_required = 1 + burn_value(code, shoe.house.ace_burns)
    elif shoe.burn_required is not None and len(shoe.burn) > shoe.burn_required:
        table.flag(None, "BURN_EXCESS",
                   f"the burn needs {shoe.burn_required} cards; more came out", once=True)


def between_card(table: TableMachine, e: CardDealt | UnreadableDealt) -> None:
    """A card between games (BETWEEN): the burn after the game, set aside, or dealt early."""
    shoe = table.shoe
    assert shoe is not None and shoe.current is not None
    previous = shoe.current
    code = e.card if isinstance(e, CardDealt) else UNREADABLE
    previous.between_cards += 1
    surplus = previous.between_cards - (1 if shoe.house.burn_after_each_game else 0)
    if surplus <= 0:
        table.emit("card_placed", previous.number, ("burn", code))
        card_flags(table, e, previous, code, "burn")
        return
    if surplus == 1 or (shoe.early is not None and shoe.early.complete):
        target = shoe.early if surplus > 1 else previous
        assert target is not None
        target.set_aside.append(code)
        table.emit("card_placed", target.number, ("set_aside", code))
        table.flag(target, "UNNEEDED_DRAW",
                   f"{code} came out after game {target.number} was complete; set aside", once=True)
        card_flags(table, e, target, code, "set_aside")
        return
    game = shoe.early
    if game is None:
        game = shoe.early = table.new_game()
        table.flag(game, "EARLY_DEAL", f"game {game.number} received cards before its bets closed")
    pos = game.place(code)
    table.emit("card_placed", game.number, (pos, code))
    card_flags(table, e, game, code, pos)


def card_flags(table: TableMachine, e: CardDealt | UnreadableDealt, game: Game, code: str,
               where: str) -> None:
    """The flags a card at `where` of `game` raises (unreadable, pulled together, foreign)."""
    if code == UNREADABLE:
        table.flag(game, "UNREADABLE_CARD", f"the card at {where} could not be read")
    elif e.multi:
        table.flag(game, "MULTI_PULL", f"{code} ({where}) came out together with the card before it")
    count(table, code, game if where not in ("burn", "set_aside") else None)


def count(table: TableMachine, code: str, game: Game | None) -> None:
    """One more copy of `code` out of the shoe (FOREIGN_CARD past the shoe's decks)."""
    shoe = table.shoe
    assert shoe is not None
    if code == UNREADABLE:
        return
    n = shoe.counts.get(code, 0) + 1
    shoe.counts[code] = n
    if n > shoe.house.decks:
        count_over(table, code, game, n)


def count_over(table: TableMachine, code: str, game: Game | None, n: int) -> None:
    """`code` came out as copy `n`, more than the shoe's decks hold."""
    decks = table.shoe.house.decks  # type: ignore[union-attr]
    table.flag(game, "FOREIGN_CARD", f"{code} is copy {n} from a shoe of {decks} deck(s)")
