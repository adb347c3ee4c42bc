"""The audit view of a table's state: the JSON object of `dealer-assist audit --json`."""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.game import Game
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.shoe import Shoe


def totals(game: Game) -> tuple[int | None, int | None]:
    """Player's and Banker's totals of the cards dealt so far; None while a card is unknown."""
    if not game.known:
        return None, None
    return sum(game.player_values) % 10, sum(game.banker_values) % 10  # type: ignore[arg-type]


def winner(game: Game) -> str | None:
    """`player`, `banker` or `tie` for a complete game (not void); None for any other."""
    if game.status != "complete":
        return None
    p_total, b_total = totals(game)
    return "player" if p_total > b_total else "banker" if b_total > p_total else "tie"  # type: ignore[operator]


def game_view(game: Game, paytable: PayTable, share: bool = False) -> dict[str, Any]:
    """One game of the audit: cards, totals, winner, pairs, winning bets, status, flags, review.

    This is the one serialisation of a game: the public display's result, the supervisor's
    review and the export's games.csv row are all read from it.
    The winner (and so the winning bets) is None unless the game is complete and not void.
    An audit makes one per game: each fact is read from the game once (`totals` and `winner`
    inlined). With `share`, the view holds the game's own lists (Player's, Banker's and the
    set-aside cards, and its flags while there are none), not copies, and one list of winning
    bets for all games of a result: for a game let go once viewed, in a view never changed
    (the audit's).
    """
    player, banker = game.player, game.banker
    pv, bv = game.player_values, game.banker_values
    known = not game.unknowns
    status = game.status
    if known:
        p_total: int | None = sum(pv) % 10  # type: ignore[arg-type]
        b_total: int | None = sum(bv) % 10  # type: ignore[arg-type]
    else:
        p_total = b_total = None
    if game.seven_up:
        player_pair = len(player) >= 1 and player[0][0] == "7"
    else:
        player_pair = len(player) >= 2 and player[0][0] == player[1][0]
    banker_pair = len(banker) >= 2 and banker[0][0] == banker[1][0]
    n_cards = len(pv) + len(bv)
    natural = (known and len(pv) >= 2 and len(bv) >= 2
               and ((pv[0] + pv[1]) % 10 >= 8 or (bv[0] + bv[1]) % 10 >= 8))  # type: ignore[operator]
    won: str | None = None
    bets: list[dict[str, str]] = []
    if status == "complete":  # so every card is known
        won = ("player" if p_total > b_total  # type: ignore[operator]
               else "banker" if b_total > p_total else "tie")  # type: ignore[operator]
        super7 = game.super7_offered
        sevens = (pv.count(7) + bv.count(7)) if super7 else 0
        winning = paytable.winning_bets(
            won, p_total, b_total, player_pair, banker_pair, n_cards, sevens,  # type: ignore[arg-type]
            super7)
        bets = (paytable.winning_bets_view(winning) if share
                else [{"bet": b, "pays": p} for b, p in winning])
    flags = game.flags
    return {
        "game": game.number,
        "player": player if share else player[:], "banker": banker if share else banker[:],
        "player_total": p_total, "banker_total": b_total,
        "winner": won,
        "natural": bool(natural),
        "cards": n_cards,
        "player_pair": player_pair, "banker_pair": banker_pair,
        "winning_bets": bets,
        "status": status,
        "last_game": game.last_game,
        "set_aside": game.set_aside if share else game.set_aside[:],
        "flags": [f.as_dict() for f in flags] if flags else flags if share else [],
        "review": game.review if flags else "none",
    }


def shoe_view(shoe: Shoe, paytables: dict[str, PayTable], share: bool = False) -> dict[str, Any]:
    """One shoe of the audit: its settings, status, burn, flags and games (`game_view`, with
    `share` as there: the burn's list too)."""
    house = shoe.house
    paytable = paytables[house.variant]
    return {
        "shoe_id": shoe.shoe_id,
        "decks": house.decks,
        "variant": house.variant,
        "burn_after_each_game": house.burn_after_each_game,
        "status": shoe.status,
        "burn": {"cards": shoe.burn if share else list(shoe.burn), "required": shoe.burn_required},
        "flags": [f.as_dict() for f in shoe.flags],
        "games": [game_view(g, paytable, share) for g in shoe.games],
    }
