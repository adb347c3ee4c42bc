"""What each screen may show: the public table display, and the supervisor's review console.

The public display is read by everyone at the table, so it is built to leak nothing early:

- a card's value is shown only once that card is revealed (the camera saw it face up, or the
  dealer pressed reveal). The shoe reads every card as it comes out, so the system knows the
  result before the squeeze: a dealt, unrevealed card is a card back, its value never sent;
- a side's total only once every card of that side is revealed; the result, the winning bets
  and the next call that follows from values ("PLAYER DRAWS") only once the game is open;
- the roads take a game only once it is open, or once the next game's bets have closed;
- never the shoe's composition, the cards left, the burn's face-down cards, set-aside cards,
  flag details (they name cards) or side-bet alerts.

The supervisor's view shows everything: cards by position, totals, flags with their rule, the
correction the rules propose, and the side-bet alerts.
"""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.cards import CARD_VALUE
from dealer_assist.domain.flags import FLAGS, NEEDS_DECISION
from dealer_assist.domain.game import Game
from dealer_assist.domain.next_action import next_action
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.phases import BETWEEN, BURN, DEALING
from dealer_assist.domain.proposal import propose
from dealer_assist.domain.report import game_view, winner
from dealer_assist.domain.roads import (
    OUTCOME_OF_WINNER,
    bead_columns,
    big_road,
    derived_road,
    layout,
    outcome_of,
    streaks,
)
from dealer_assist.domain.rules import SEVEN_UP_FIXED_VALUE
from dealer_assist.domain.shoe import Shoe
from dealer_assist.domain.table import TableMachine

#: Flag codes in words, for the public alert banner (the details stay on the console).
FLAG_TITLE = {
    "BURN_SHORT": "burn short", "BURN_EXCESS": "burn too long", "BURN_MISSING": "burn missed",
    "UNNEEDED_DRAW": "card drawn when none was needed", "EARLY_DEAL": "cards dealt early",
    "MISSING_DRAW": "draw missed", "WRONG_POSITION": "card in the wrong position",
    "CARD_MISMATCH": "card does not match the shoe", "EXPOSED_DURING_BETTING": "card exposed",
    "DROPPED_OPENED": "opened card dropped", "DEAL_AFTER_LAST_GAME": "dealt after the last game",
    "FOREIGN_CARD": "foreign card", "UNREADABLE_CARD": "unreadable card",
    "DATA_GAP": "shoe data lost", "INTERRUPTED": "game interrupted by the system",
}


# ---- what is open on the table ------------------------------------------------------------

def is_open(game: Game) -> bool:
    """Every card of the game dealt so far is revealed."""
    return all(pos in game.revealed for pos, _ in game.cards)


def is_shown(shoe: Shoe, game: Game) -> bool:
    """Whether the game's result may be public: it is open, or play has moved past it."""
    if is_open(game) or shoe.ended:
        return True
    current = shoe.current
    return current is not None and game.number < current.number


def road_outcomes(shoe: Shoe) -> str:
    """B/P/T for the shoe's complete, non-void games that may be public, in order."""
    return "".join(outcome_of(won) for game in shoe.games
                   if (won := winner(game)) is not None and is_shown(shoe, game))


def roads_view(outcomes: str) -> dict[str, Any]:
    """The five roads as display grids: bead plate columns, grids[row][col] for the others."""
    def grid(marks: str) -> list[list[str | None]]:
        return layout(streaks(marks))

    big = layout(big_road(outcomes))
    return {
        "games": len(outcomes),
        "bead_plate": bead_columns(outcomes),
        "big_road": [[None if c is None else {"w": c.winner, "t": c.ties} for c in row]
                     for row in big],
        "big_eye_boy": grid(derived_road(outcomes, 1)),
        "small_road": grid(derived_road(outcomes, 2)),
        "cockroach_pig": grid(derived_road(outcomes, 3)),
        "counts": {k: outcomes.count(v) for k, v in OUTCOME_OF_WINNER.items()},
    }


# ---- the public display -------------------------------------------------------------------

def _side(game: Game, side: str) -> tuple[list[dict[str, Any]], int | None]:
    """The side's card slots (values only where revealed) and its total if all are open."""
    slots: list[dict[str, Any]] = []
    values: list[int] = []
    open_all = True
    if side == "P" and game.seven_up:
        slots.append({"pos": "P1", "dealt": True, "fixed": True, "card": "7"})
        values.append(SEVEN_UP_FIXED_VALUE)
    for pos, code in game.cards:
        if pos[0] != side:
            continue
        shown = pos in game.revealed
        slots.append({"pos": pos, "dealt": True, "card": code if shown else None})
        value = CARD_VALUE.get(code)
        if not shown or value is None:
            open_all = False
        else:
            values.append(value)
    total = sum(values) % 10 if open_all and len(slots) > 0 else None
    return slots, total


def _shoe_state(machine: TableMachine, shoe: Shoe) -> str:
    if shoe.void_from is not None:
        return "shoe void"
    if shoe.finished:
        return "shoe finished"
    if machine.phase == BURN:
        left = shoe.burn_remaining
        return "burn in progress" + (f": {left} more" if left else "")
    game = shoe.current
    if game is not None and game.last_game:
        return "last game"
    if machine.phase == DEALING:
        return "dealing"
    if machine.phase == BETWEEN and game is not None:
        if not is_open(game):
            return "dealing"  # the hand is in play until its cards are opened
        burn_due = shoe.house.burn_after_each_game and not game.between_cards
        return "burn after the game" if burn_due else "betting"
    return "no shoe"


def _game(shoe: Shoe, game: Game, paytable: PayTable) -> dict[str, Any]:
    player, p_total = _side(game, "P")
    banker, b_total = _side(game, "B")
    view: dict[str, Any] = {
        "number": game.number, "cards_out": len(game.cards), "player": player, "banker": banker,
        "player_total": p_total, "banker_total": b_total, "last_game": game.last_game,
        "result": None,
    }
    if game.complete and is_shown(shoe, game):
        audit = game_view(game, paytable)
        view["result"] = {"status": audit["status"], "winner": audit["winner"],
                          "natural": audit["natural"], "bets": audit["winning_bets"]}
    elif game.void and is_shown(shoe, game):
        view["result"] = {"status": "void", "winner": None, "natural": False, "bets": []}
    return view


def _alert(shoe: Shoe) -> dict[str, Any] | None:
    """The banner while a flag waits for a supervisor: names only, never the details."""
    lines = []
    for game in shoe.games:
        if game.review != "pending":
            continue
        codes = sorted({f.code for f in game.flags[game.decided_upto:]
                        if f.severity in NEEDS_DECISION})
        if is_shown(shoe, game):
            lines.append(f"Game {game.number}: " + ", ".join(FLAG_TITLE.get(c, c) for c in codes))
        else:
            lines.append(f"Game {game.number}: supervisor called to the table")
    if shoe.void_from is not None and any(f.severity == "shoe_void" for f in shoe.flags):
        lines.insert(0, f"Shoe void from game {shoe.void_from}: " + ", ".join(
            FLAG_TITLE.get(f.code, f.code) for f in shoe.flags if f.severity == "shoe_void"))
    if not lines:
        return None
    return {"title": "Supervisor review", "lines": lines}


#: What the public display says of a link, whatever the device said: an OS error's text or a
#: port's path is for the supervisor's console and the log, not for the players.
LINK_WORDS = {"up": "working", "down": "not connected", "unknown": "waiting for the device",
              "off": "not fitted"}


def public_links(links: dict[str, dict[str, Any]]) -> dict[str, dict[str, Any]]:
    """Each link's status and when it changed, with plain words for the reason."""
    return {name: {"status": link.get("status"),
                   "reason": LINK_WORDS.get(str(link.get("status")), "not connected"),
                   "since": link.get("since")}
            for name, link in links.items()}


def public_view(machine: TableMachine, paytables: dict[str, PayTable], table_id: str,
                links: dict[str, dict[str, Any]], seq: int) -> dict[str, Any]:
    """Everything the public display shows, as one JSON-ready object (see the module doc)."""
    shoe = machine.shoe
    headline, notes = next_action(machine, hide_unrevealed=True)
    view: dict[str, Any] = {
        "seq": seq, "table": table_id, "links": public_links(links),
        "action": {"headline": headline, "notes": list(notes)},
        "shoe": None, "game": None, "alert": None, "roads": roads_view(""),
    }
    if shoe is None:
        return view
    house = shoe.house
    view["shoe"] = {
        "id": shoe.shoe_id, "variant": house.variant, "decks": house.decks,
        "status": shoe.status, "state": _shoe_state(machine, shoe),
        "burn_cards": len(shoe.burn), "burn_remaining": shoe.burn_remaining,
        "games": len(shoe.games), "last_game": shoe.last_game,
    }
    if shoe.current is not None:
        view["game"] = game = _game(shoe, shoe.current, paytables[house.variant])
        if game["result"] is not None and game["result"]["status"] == "void":
            view["action"]["headline"] = "game void"
    view["alert"] = _alert(shoe)
    view["roads"] = roads_view(road_outcomes(shoe))
    return view


# ---- the supervisor's view ----------------------------------------------------------------

def review_item(shoe: Shoe, game: Game, paytable: PayTable) -> dict[str, Any]:
    """A game as the supervisor reviews it: everything, with the rules and the proposal."""
    audit = game_view(game, paytable)
    return {
        "shoe_id": shoe.shoe_id, "variant": shoe.house.variant, "game": game.number,
        "cards": [{"pos": p, "card": c, "revealed": p in game.revealed} for p, c in game.cards],
        "player": audit["player"], "banker": audit["banker"],
        "player_total": audit["player_total"], "banker_total": audit["banker_total"],
        "winner": audit["winner"], "status": audit["status"], "review": audit["review"],
        "set_aside": audit["set_aside"], "last_game": game.last_game,
        "seven_up": game.seven_up, "complete": game.complete,
        "flags": [{**f.as_dict(), "rule": FLAGS[f.code].rule,
                   "decided": i < game.decided_upto} for i, f in enumerate(game.flags)],
        "proposals": [p._asdict() for p in propose(shoe, game)],
        "ruling": game.ruling,
    }


def review_queue(machine: TableMachine, paytables: dict[str, PayTable]) -> list[dict[str, Any]]:
    """Every game of every shoe with a review or void flag and no decision, oldest first."""
    return [review_item(shoe, game, paytables[shoe.house.variant])
            for shoe in machine.shoes for game in shoe.games if game.review == "pending"]


def find_game(machine: TableMachine, shoe_id: str | None, number: int) -> tuple[Shoe, Game] | None:
    """The game `number` of shoe `shoe_id` (None: the current shoe), latest shoe of that id."""
    shoes = [machine.shoe] if shoe_id is None else [
        s for s in reversed(machine.shoes) if s.shoe_id == shoe_id][:1]
    for shoe in shoes:
        if shoe is not None and (game := shoe.game(number)) is not None:
            return shoe, game
    return None


def shoe_summaries(machine: TableMachine) -> list[dict[str, Any]]:
    """The shoes of the log, newest first, with their shoe-level flags and the rule of each."""
    return [{
        "shoe_id": s.shoe_id, "variant": s.house.variant, "status": s.status,
        "games": len(s.games), "started": s.started_ts, "ended": s.ended_ts,
        "flags": [{**f.as_dict(), "rule": FLAGS[f.code].rule} for f in s.flags],
    } for s in reversed(machine.shoes)]
