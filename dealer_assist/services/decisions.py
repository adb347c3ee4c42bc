"""The supervisors' decisions as the console reads them, and one decision per flagged game.

A read model kept as decisions are applied (replayed on start, then as they are appended;
kept in the snapshots), never read back from the log: the supervisor's history, newest first,
by shoe and by flag code.

One decision per flagged game. A game whose flags that need a decision are all decided is
*already decided*: another decision on it is refused (`AlreadyDecided`) until a new flag needs
one. A `void_shoe` is refused once a `void_shoe` decision voids the shoe from that game or an
earlier one (a shoe that a flag voided may still be voided by a supervisor). A game
with no flag that needs a decision may be ruled on at the supervisor's discretion, as before.
The live table makes this check (`Decisions.event`, which also checks what the supervisor sent:
the action, the reason, a correction the rules complete) and the append under one lock, so of
two decisions on one game that arrive together (the console's and the floor's), exactly one is
recorded.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from dealer_assist.domain.cards import CardError, parse_card
from dealer_assist.domain.events import DECISION_ACTIONS, MAX_REASON
from dealer_assist.domain.excerpt import shown
from dealer_assist.domain.game import Game
from dealer_assist.domain.rules import HandError, check_hand
from dealer_assist.domain.shoe import Shoe
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.public_view import find_game
from dealer_assist.services.refusals import AlreadyDecided, Refused, plain

HAND = ("player", "banker")


class Decisions:
    """The decisions of a table's log, oldest first, each with the shoe it concerns."""

    def __init__(self, rows: list[dict[str, Any]] | None = None) -> None:
        self.rows: list[dict[str, Any]] = rows if rows is not None else []

    def __len__(self) -> int:
        return len(self.rows)

    def add(self, seq: int, obj: Mapping[str, Any], machine: TableMachine) -> None:
        """A decision applied to `machine` (as logged, as JSON): keep it for the history."""
        shoe_id = obj.get("shoe_id") or (machine.shoe.shoe_id if machine.shoe else None)
        hand = {k: None if obj.get(k) is None else tuple(obj[k]) for k in HAND}
        self.rows.append({"seq": seq, "ts": obj.get("ts"), "shoe_id": shoe_id,
                          "game": obj.get("game"), "action": obj.get("action"),
                          "by": obj.get("by"), "reason": obj.get("reason"), **hand})

    def event(self, machine: TableMachine, by: str, game: int, action: str, reason: str,
              shoe_id: str | None, player: Sequence[str], banker: Sequence[str]) -> dict[str, Any]:
        """The `decision` event a supervisor's decision on `machine`'s game logs; Refused says
        what is wrong, AlreadyDecided that another decision settles the game (module docstring).
        The live table calls it under its lock and appends what it returns."""
        if action not in DECISION_ACTIONS:
            raise Refused(f"decision {shown(action)}: one of {', '.join(DECISION_ACTIONS)}")
        reason = " ".join(str(reason).split())
        if not reason:
            raise Refused("a decision needs a reason")
        if len(reason) > MAX_REASON:
            raise Refused(f"a reason has at most {MAX_REASON} characters")
        if not by.strip():
            raise Refused("a decision needs the supervisor who made it")
        found = find_game(machine, shoe_id, game)
        if found is None:
            where = f"shoe {plain(shoe_id)}" if shoe_id else "the current shoe"
            raise Refused(f"{where} has no game {plain(game)}")
        shoe, target = found
        prior = self.settled(shoe, target, action)
        if prior is not None:
            raise AlreadyDecided(shoe.shoe_id, game, prior)
        event: dict[str, Any] = {"src": "supervisor", "type": "decision", "game": game,
                                 "action": action, "by": by, "reason": reason,
                                 "shoe_id": shoe.shoe_id}
        if action == "correct":
            event.update(_correction(target, player, banker))
        return event

    def settled(self, shoe: Shoe, game: Game, action: str) -> dict[str, Any] | None:
        """The decision that already settles `action` on `game` of `shoe`, or None when the
        game is open to it (module docstring)."""
        number = game.number
        if action != "void_shoe" and game.review != "resolved":
            return None
        for row in reversed(self.rows):
            if row["shoe_id"] != shoe.shoe_id:
                continue
            by_shoe = row["action"] == "void_shoe" and row["game"] <= number
            if by_shoe or (action != "void_shoe" and row["game"] == number):
                return row
        if action == "void_shoe":  # a shoe a flag voided may still be voided by a supervisor
            return None
        return {"seq": None, "by": None, "reason": None, "action": None}  # a trace's own

    def history(self, machine: TableMachine, shoe_id: str | None = None,
                flag: str | None = None) -> list[dict[str, Any]]:
        """Newest first, by shoe and by flag code; each with the flag codes its game has now."""
        out = []
        for row in reversed(self.rows):
            sid = row["shoe_id"]
            if shoe_id and sid != shoe_id:
                continue
            found = find_game(machine, sid, row["game"]) if sid else None
            codes = sorted({f.code for f in found[1].flags}) if found else []
            if flag and flag not in codes:
                continue
            out.append({**row, **{k: None if row[k] is None else list(row[k]) for k in HAND},
                        "flags": codes})
        return out


def _correction(game: Game, player: Sequence[str], banker: Sequence[str]) -> dict[str, Any]:
    """A correction's hands: cards the rules complete, no more, no fewer (else Refused)."""
    try:
        p = [parse_card(c) for c in player]
        b = [parse_card(c) for c in banker]
        check_hand(p, b, game.seven_up)
    except CardError as e:
        raise Refused(f"correction: {e}") from None
    except HandError as e:
        raise Refused(str(e)) from None
    return {"player": p, "banker": b}


class ReviewCounts:
    """The games waiting for a decision and the flags raised, and a key that changes whenever
    the review queue, a decision or the alerts change (the console reloads on it). Taken on
    every change the table publishes, so each shoe's counts are kept until the live table marks
    the shoe changed (as it does for the snapshots): a change costs the shoes it touched, not
    the table's whole history (48k events, 8k games: 1.6 ms a change when counted afresh)."""

    def __init__(self) -> None:
        self._per_shoe: list[tuple[int, int] | None] = []

    def changed(self, index: int) -> None:
        """Shoe `index` changed (or is new): count it again next time."""
        if index < len(self._per_shoe):
            self._per_shoe[index] = None

    def state(self, machine: TableMachine, decisions: int, alerts: int) -> tuple[int, str]:
        """(pending, key) of `machine` with `decisions` decisions and `alerts` alerts."""
        per_shoe = self._per_shoe
        per_shoe.extend([None] * (len(machine.shoes) - len(per_shoe)))
        pending = flags = 0
        for index, counted in enumerate(per_shoe):
            if counted is None:
                shoe = machine.shoes[index]
                counted = per_shoe[index] = (
                    sum(game.review == "pending" for game in shoe.games),
                    len(shoe.flags) + sum(len(game.flags) for game in shoe.games))
            pending += counted[0]
            flags += counted[1]
        return pending, f"{pending}/{flags}/{decisions}/{alerts}"
