"""The table machine over a stream of events, writing each shoe's rows once it is final.

Theory of operation. An export (and its verification) reads the events twice:

1. `decision_reach` reads only the `new_shoe` and `decision` events and notes, for every shoe,
   the position of the last decision that reaches it (a supervisor may rule on a game of a
   shoe after the next shoe has started: with `shoe_id`, or after `end_shoe`).
2. `Reaudit` feeds every event to `TableMachine`. A shoe is final once a newer shoe has started
   and no later decision reaches it: its games, flags and settings go to the sink then, in
   the order the shoes started, and the machine keeps only an empty stand-in for it (so shoe
   ids and the search for a decision's shoe stay exactly as in a full audit).

Memory holds the open shoe and any shoe a later decision still reaches, never the whole log,
and the rows are exactly those of one `dealer-assist audit` of the same events.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable
from typing import Any, Protocol

from dealer_assist.domain.events import DecisionMade, Event, ShoeLoaded, parse_event
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.phases import NO_SHOE
from dealer_assist.domain.report import game_view
from dealer_assist.domain.shoe import Shoe
from dealer_assist.domain.table import TableMachine
from dealer_assist.export.rows import Row, decision_row, flag_rows, game_row
from dealer_assist.export.source import ms_stamp

#: Text that every `new_shoe` and `decision` event holds in its canonical JSON.
NEEDLES = ('"type":"decision"', '"type":"new_shoe"')


class RowSink(Protocol):
    """Where the rows go: files being written (export) or files being compared (verify)."""

    def game(self, row: Row) -> None: ...

    def flag(self, row: Row) -> None: ...

    def decision(self, row: Row) -> None: ...

    def shoe(self, settings: dict[str, Any]) -> None: ...


def parse(obj: Any) -> Event | None:
    """The trace event of a decoded JSON object; None if it is not one."""
    try:
        return parse_event(obj)
    except ValueError:
        return None


class ShoeTracker:
    """Which shoe a decision reaches, found the way the table machine finds it."""

    def __init__(self) -> None:
        self.count = 0
        self.current: int | None = None
        self._by_id: dict[str, int] = {}

    def started(self, event: ShoeLoaded) -> tuple[int, str]:
        """The shoe's number in the stream (1, 2...) and its id as the machine names it."""
        self.count += 1
        shoe_id = event.shoe_id or f"shoe-{self.count}"
        self._by_id[shoe_id] = self.current = self.count
        return self.count, shoe_id

    def reached(self, made: DecisionMade) -> int | None:
        if made.shoe_id is not None:
            return self._by_id.get(made.shoe_id)
        return self.current


def decision_reach(events: Iterable[tuple[int, Any]]) -> dict[int, int]:
    """Shoe number -> position of the last decision that reaches it, from (position, event)
    pairs that include at least every `new_shoe` and `decision` event."""
    tracker = ShoeTracker()
    last: dict[int, int] = {}
    for position, obj in events:
        event = parse(obj)
        if isinstance(event, ShoeLoaded):
            tracker.started(event)
        elif isinstance(event, DecisionMade):
            shoe = tracker.reached(event)
            if shoe is not None:
                last[shoe] = position
    return last


class Reaudit:
    """Feeds events to a table machine and hands each final shoe's rows to `sink`."""

    def __init__(self, table: str, paytables: dict[str, PayTable], reach: dict[int, int],
                 sink: RowSink) -> None:
        self.table = table
        self.paytables = paytables
        self.reach = reach
        self.sink = sink
        self.machine = TableMachine(record=False)
        self.tracker = ShoeTracker()
        self.counts = {"events": 0, "shoes": 0, "games": 0, "flags": 0, "decisions": 0,
                       "events_ignored": 0, "events_not_trace": 0}
        self.first_ts: str | None = None
        self.last_ts: str | None = None
        #: Shoes not yet written: (number, shoe, seq of its new_shoe), in order.
        self._open: deque[tuple[int, Shoe, int]] = deque()
        #: (shoe number, game) -> (seq, decision) of the latest decision applied to it.
        self._decided: dict[tuple[int, int], tuple[int, DecisionMade]] = {}
        self._shoe_seq: dict[int, int] = {}
        #: Shoe number -> the dealer of each game, as its bets_closed named it (None: none).
        self._dealers: dict[int, list[str | None]] = {}

    def feed(self, position: int, seq: int, obj: Any) -> None:
        """One event, the `position`-th of the stream (from 0), stored at `seq`."""
        counts = self.counts
        counts["events"] += 1
        if type(obj) is dict:
            ts = obj.get("ts")
            if self.first_ts is None:
                self.first_ts = ts
            self.last_ts = ts
        event = parse(obj)
        if event is None:
            counts["events_not_trace"] += 1
            return
        machine = self.machine
        kind = event.TYPE
        if kind == "new_shoe":
            machine.apply(event)
            self._started(event, seq)  # type: ignore[arg-type]
            self._release(position)
        elif kind == "decision":
            self._decision(event, seq)  # type: ignore[arg-type]
            self._release(position)
        else:
            machine.apply(event)
            if kind == "bets_closed":
                self._dealt_by(obj.get("dealer"))
        if machine.problems:
            counts["events_ignored"] += len(machine.problems)
            machine.problems.clear()

    def finish(self) -> None:
        """The end of the stream: every shoe still open is final."""
        while self._open:
            self._write(*self._open.popleft())

    # -- inside -------------------------------------------------------------------------------
    def _started(self, event: ShoeLoaded, seq: int) -> None:
        number, shoe_id = self.tracker.started(event)
        shoe = self.machine.shoes[number - 1]
        self._open.append((number, shoe, seq))
        self._shoe_seq[number] = seq
        self.counts["shoes"] += 1
        self.sink.shoe({"shoe": shoe_id, "shoe_seq": seq, "started_utc": ms_stamp(event.ts),
                        **event.house.as_dict()})

    def _dealt_by(self, dealer: Any) -> None:
        """A game started (game n at the shoe's nth bets_closed): note who dealt it."""
        number = self.tracker.current
        if number is None or self.machine.phase == NO_SHOE or number not in self._shoe_seq:
            return
        name = dealer if isinstance(dealer, str) and dealer.strip() else None
        self._dealers.setdefault(number, []).append(name)

    def _decision(self, made: DecisionMade, seq: int) -> None:
        machine = self.machine
        number = self.tracker.reached(made)
        before = len(machine.problems)
        machine.apply(made)
        problem = machine.problems[-1][1] if len(machine.problems) > before else None
        shoe = None
        if number is not None and number in self._shoe_seq:
            shoe = (machine.shoes[number - 1].shoe_id, self._shoe_seq[number])
            if problem is None:
                self._decided[(number, made.game)] = (seq, made)
        self.counts["decisions"] += 1
        self.sink.decision(decision_row(self.table, seq, made, shoe, problem))

    def _release(self, position: int) -> None:
        """Write the shoes that are final, oldest first."""
        current = self.machine.shoe
        while self._open:
            number, shoe, seq = self._open[0]
            if shoe is current or self.reach.get(number, -1) > position:
                return
            self._open.popleft()
            self._write(number, shoe, seq)

    def _write(self, number: int, shoe: Shoe, seq: int) -> None:
        paytable = self.paytables[shoe.house.variant]
        dealers = self._dealers.pop(number, [])
        for game in shoe.games:
            decision = self._decided.pop((number, game.number), None)
            view = game_view(game, paytable)
            dealer = dealers[game.number - 1] if game.number <= len(dealers) else None
            self.sink.game(game_row(self.table, shoe, seq, game, view, decision, dealer))
        flags = flag_rows(self.table, shoe, seq)
        for row in flags:
            self.sink.flag(row)
        self.counts["games"] += len(shoe.games)
        self.counts["flags"] += len(flags)
        if shoe is not self.machine.shoe:
            self.machine.shoes[number - 1] = Shoe(shoe.shoe_id, shoe.house)
        del self._shoe_seq[number]
