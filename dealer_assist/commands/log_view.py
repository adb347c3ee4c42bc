"""`dealer-assist log`'s reading of a table's log: each event placed in its shoe and game, the
games as the audit sees them with their dealers, and the lines and JSON Lines it prints.

An event belongs to the shoe of the last `new_shoe` before it, and to the game its shoe's last
`bets_closed` started (game n of a shoe starts at its nth `bets_closed`, table-trace.md; game
0: the shoe's burn, before its first game). A `decision` belongs to the game (and shoe, when
it names one) it names. A `bets_closed` with no shoe on the table starts no game, as the table
machine has it; its dealer, when it names one, is the game's dealer (services/dealer_duty.py).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from typing import Any, NamedTuple

import orjson

from dealer_assist.commands.audit import game_row
from dealer_assist.commands.failed import CommandFailed
from dealer_assist.store.chain import RawRecord


class Placed(NamedTuple):
    """One event of the log, in its shoe and game (None: before any shoe)."""

    seq: int
    shoe: str | None
    game: int | None
    event: dict[str, Any]
    body: str


class Start(NamedTuple):
    """Where a game started: its bets_closed's time and dealer."""

    shoe: int
    game: int
    ts: str
    dealer: str | None


class Placing:
    """The running shoe and game as the log's events go by."""

    def __init__(self) -> None:
        self.shoes = 0  # new_shoe events so far: the index of the shoe now is shoes - 1
        self.shoe: str | None = None
        self.game: int | None = None
        self.open = False

    def place(self, record: RawRecord) -> tuple[Placed, Start | None]:
        try:
            event = orjson.loads(record.body)
        except orjson.JSONDecodeError as e:
            raise CommandFailed(f"event seq {record.seq} is not valid JSON: {e}") from None
        kind, start = event.get("type"), None
        if kind == "new_shoe":
            self.shoes += 1
            self.shoe, self.game, self.open = str(event.get("shoe_id")), 0, True
        elif kind == "end_shoe":
            self.open = False
        elif kind == "bets_closed" and self.open and self.game is not None:
            self.game += 1
            dealer = event.get("dealer")
            start = Start(self.shoes - 1, self.game, str(event.get("ts")),
                          dealer if isinstance(dealer, str) and dealer.strip() else None)
        if kind == "decision":
            game = event.get("game")
            shoe = event.get("shoe_id") or self.shoe
            return Placed(record.seq, shoe, game if isinstance(game, int) else None, event,
                          record.body), None
        return Placed(record.seq, self.shoe, self.game, event, record.body), start


def placed_events(records: Iterable[RawRecord],
                  placing: Placing | None = None) -> Iterator[Placed]:
    """The log's events in seq order, each placed in its shoe and game (`placing`: where the
    events before them left off, for a reading that goes on)."""
    placing = Placing() if placing is None else placing
    for record in records:
        yield placing.place(record)[0]


def games_of(records: Iterable[RawRecord], name: str) -> Iterator[dict[str, Any]]:
    """The audit's games of the log, in order, each with its "shoe_id", "started" (its
    bets_closed's time) and "dealer"; CommandFailed if the log does not audit."""
    from dealer_assist.services.audit import audit_lines
    from dealer_assist.services.trace import TraceLineError

    placing = Placing()
    starts: dict[tuple[int, int], Start] = {}

    def bodies() -> Iterator[str]:
        for record in records:
            start = placing.place(record)[1]
            if start is not None:
                starts[start.shoe, start.game] = start
            yield record.body

    try:
        report = audit_lines(bodies())
    except TraceLineError as e:
        raise CommandFailed(f"{name}: {e} (line n is event seq n)") from None
    for index, shoe in enumerate(report["shoes"]):
        for game in shoe["games"]:
            start = starts.get((index, game["game"]))
            yield {"shoe_id": shoe["shoe_id"], "started": start.ts if start else None,
                   "dealer": start.dealer if start else None, **game}


# ---- what is printed -----------------------------------------------------------------------

def event_json(placed: Placed) -> str:
    """The event as stored (its canonical JSON, an object with ts, src and type at least),
    with its seq put first."""
    return f'{{"seq":{placed.seq},{placed.body[1:]}'


def event_line(placed: Placed) -> str:
    """seq, time, shoe, game, source, type and the other fields as name=value."""
    event = placed.event
    shoe = placed.shoe if placed.shoe is not None else "-"
    game = "-" if placed.game is None else str(placed.game)
    fields = " ".join(f"{k}={_value(v)}" for k, v in event.items()
                      if k not in ("ts", "src", "type"))
    return (f"{placed.seq:>7}  {event.get('ts', '-')!s:<24}  shoe {shoe:<8} game {game:>3}  "
            f"{event.get('src', '-')!s:<10} {event.get('type', '-')!s:<14} {fields}").rstrip()


def _value(value: Any) -> str:
    if isinstance(value, str) and value and not any(c.isspace() or c in '"=' for c in value):
        return value
    return json.dumps(value, ensure_ascii=False)


def game_json(game: dict[str, Any]) -> str:
    return json.dumps(game, ensure_ascii=False)


def game_line(game: dict[str, Any]) -> str:
    """The shoe, when its bets closed, the audit's line of the game, and its dealer."""
    return (f"{game['started'] or '-':<24}  shoe {game['shoe_id']:<8} game "
            f"{game_row(game).strip()}  dealer {game['dealer'] or '-'}")


def decision_line(placed: Placed) -> str:
    """A supervisor's decision: seq, when, shoe, game, action, by whom, why (and a
    correction's cards)."""
    d = placed.event
    shoe = placed.shoe if placed.shoe is not None else "-"
    cards = "".join(f"  {side} {' '.join(d[side])}" for side in ("player", "banker")
                    if isinstance(d.get(side), list) and d[side])
    return (f"{placed.seq:>7}  {d.get('ts', '-')!s:<24}  shoe {shoe:<8} game {placed.game!s:>3}  "
            f"{d.get('action', '-')!s:<9} by {d.get('by', '-')}: {d.get('reason', '')}{cards}")
