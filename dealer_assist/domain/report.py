"""The audit view of a table's state: the JSON object of `dealer-assist audit --json`."""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.game import Game
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.rules import winner as winner_of
from dealer_assist.domain.shoe import Shoe


def game_result(game: Game, paytable: PayTable) -> dict[str, Any]:
    """Totals, winner, pairs and winning bets of a game (winner None unless complete and not void)."""
    player, banker = game.side("P"), game.side("B")
    known = game.known
    p_total = sum(game.player_values) % 10 if known else None  # type: ignore[arg-type]
    b_total = sum(game.banker_values) % 10 if known else None  # type: ignore[arg-type]
    first_p = ["7"] + [c[0] for c in player[:1]] if game.seven_up else [c[0] for c in player[:2]]
    player_pair = len(first_p) == 2 and first_p[0] == first_p[1]
    banker_pair = len(banker) >= 2 and banker[0][0] == banker[1][0]
    n_cards = len(game.player_values) + len(game.banker_values)
    status = game.status
    winner = None
    bets: list[dict[str, str]] = []
    if status == "complete" and p_total is not None and b_total is not None:
        winner = winner_of(p_total, b_total)
        sevens = sum(1 for v in game.player_values + game.banker_values if v == 7)
        bets = [{"bet": b, "pays": p} for b, p in paytable.winning_bets(
            winner, p_total, b_total, player_pair, banker_pair, n_cards, sevens, game.super7_offered)]
    return {
        "player": player, "banker": banker,
        "player_total": p_total, "banker_total": b_total,
        "winner": winner,
        "natural": bool(known and len(game.player_values) >= 2 and len(game.banker_values) >= 2
                        and max(sum(game.player_values[:2]) % 10,  # type: ignore[arg-type]
                                sum(game.banker_values[:2]) % 10) >= 8),  # type: ignore[arg-type]
        "cards": n_cards,
        "player_pair": player_pair, "banker_pair": banker_pair,
        "winning_bets": bets,
        "status": status,
    }


def game_view(game: Game, paytable: PayTable) -> dict[str, Any]:
    view = {"game": game.number, **game_result(game, paytable)}
    view.update({
        "last_game": game.last_game,
        "set_aside": list(game.set_aside),
        "flags": [f.as_dict() for f in game.flags],
        "review": game.review,
    })
    return view


def shoe_view(shoe: Shoe, paytables: dict[str, PayTable]) -> dict[str, Any]:
    house = shoe.house
    paytable = paytables[house.variant]
    return {
        "shoe_id": shoe.shoe_id,
        "decks": house.decks,
        "variant": house.variant,
        "burn_after_each_game": house.burn_after_each_game,
        "super7_window": house.super7_window,
        "ace_burns": house.ace_burns,
        "status": shoe.status,
        "burn": {"cards": list(shoe.burn), "required": shoe.burn_required},
        "flags": [f.as_dict() for f in shoe.flags],
        "games": [game_view(g, paytable) for g in shoe.games],
    }
