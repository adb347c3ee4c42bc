"""The live table: what comes from the shoe, the camera, the dealer and supervisors, in order.

Theory of operation. Every observation takes one path, under one lock (so the log's order is
the order the table machine sees):

    dict in -> validate (parse_event) -> append to the log -> apply to the machine
            -> watchers (side-bet surveillance: their alerts are appended and applied too)
            -> publish: the public view and the review count go to every subscriber

The log comes first: an observation the log refuses (or cannot take: disk full) changes
nothing, and the caller gets the error. An observation that does not validate is `Refused`
(services/refusals.py) and never logged. On start the service replays the log into a fresh
machine (the watchers see it too, their alerts discarded: they are in the log already), so a
restart carries on mid-shoe exactly where it was. With `snapshots` it loads the newest
snapshot that matches the log and replays only the events after it; services/restart.py says
how, and when a snapshot is taken (each shoe's end, every `snapshot_every` events, `close()`).

The class is the one place that holds the lock, and every public method of it takes the lock:
the thread-safety of the table is read here. What each kind of change means lives in a module
of its own, one object of which the table owns and calls under its lock:

- decisions (services/decisions.py): a supervisor's decision is checked there (a required
  reason, a correction the rules complete, one decision per flagged game: `AlreadyDecided`)
  and its event built; the supervisor's history is a read model kept as decisions are applied;
- the dealer on duty (services/dealer_duty.py): a dealer signs in (`sign_in`) and is relieved
  by the next sign-in or a sign-out (`sign_out`); every `bets_closed` logged meanwhile names
  that dealer; `dealt_games` lists each game's dealer (a shift is charts.data's);
- links and health (services/link_health.py): link status (shoe, camera) lives in memory,
  each change also logged as a `link_status` event; the system's own interruptions (a restart
  on an open shoe, the shoe's link lost) are `interrupted` events (services/interruptions.py);
- start-up and snapshots (services/restart.py);
- what the screens get (services/table_reads.py, a mixin of this class): the updates pushed
  to subscribers and the queries of the console, the dealer's page, the charts and /metrics.

This module knows no store, web or hardware: the log is anything with `append` and `replay`
(see `TableLog`), the snapshots anything like `Snapshots`; bootstrap wires the real ones in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from datetime import UTC, datetime
from typing import Any, Protocol

from dealer_assist.domain.events import Event, Noted, TraceError, parse_event, trace_time
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.dealer_duty import DealerDuty, dealer_name
from dealer_assist.services.decisions import Decisions, ReviewCounts
from dealer_assist.services.interruptions import interruption
from dealer_assist.services.link_health import Links
from dealer_assist.services.refusals import Refused, event_type
from dealer_assist.services.restart import Restart
from dealer_assist.services.snapshots import Snapshots
from dealer_assist.services.table_reads import Listener, TableReads
from dealer_assist.services.table_state import TableState, settings_key

_log = logging.getLogger(__name__)


class TableLog(Protocol):
    """The event log as the live table needs it (store.SqliteEventLog, store.MemoryEventLog)."""

    def append(self, event: Mapping[str, Any]) -> int: ...

    def replay(self) -> Iterator[dict[str, Any]]: ...


#: Watches each applied event; returns events to record (without `ts`), e.g. side-bet alerts.
#: A watcher keeps state only within a shoe (it starts afresh at `new_shoe`): after a restart
#: from a snapshot it sees the current shoe's events again, with the machine as restored.
Watcher = Callable[[Event, TableMachine], list[dict[str, Any]]]


def utc_stamp(moment: datetime | None = None) -> str:
    """A trace timestamp (UTC, milliseconds, Z)."""
    return trace_time(moment or datetime.now(UTC))


class LiveTable(TableReads):
    """One table's live state over its event log. Thread-safe: one lock orders everything."""

    def __init__(self, log: TableLog, *, table_id: str, house: HouseRules,
                 paytables: dict[str, PayTable], watchers: Sequence[Watcher] = (),
                 clock: Callable[[], str] = utc_stamp, snapshots: Snapshots | None = None,
                 snapshot_every: int = 2000) -> None:
        self.table_id = table_id
        self.house = house
        self.paytables = paytables
        self._log = log
        self._watchers = list(watchers)
        self._clock = clock
        self._lock = threading.RLock()
        self._listeners: list[Listener] = []
        self.machine = TableMachine(record=True)
        self.seq = 0
        self._links = Links()
        #: Side-bet alerts of the log (supervisors only), with the shoe they came in.
        self.alerts: list[dict[str, Any]] = []
        #: The decisions of the log, oldest first: the supervisor's history, kept as they come.
        self.decisions = Decisions()
        self._last_public: dict[str, Any] | None = None
        self._last_key = ""
        self._restart = Restart(snapshots, settings_key(table_id, house, paytables),
                                snapshot_every)
        self._counts = ReviewCounts()
        #: The dealer of every game and the dealer at the table now.
        self.duty = DealerDuty()
        #: How the start-up went: "N events replayed", or from which snapshot.
        self.started = ""
        self._rebuild()

    # ---- start-up and snapshots (services/restart.py) -------------------------------------
    def _rebuild(self) -> None:
        self.started = self._restart.start(
            self.table_id, self._log.replay, self._restore,
            apply=lambda seq, obj: self._apply(_logged(seq, obj), seq, obj, replaying=True),
            watch=lambda seq, obj: self._watch(_logged(seq, obj), replaying=True))
        self.duty.resume(self.machine)
        self._last_public = self._public()
        self._last_key = self._review_state()[1]
        self._restart.take(self, unwritten=True)

    def _restore(self, state: TableState) -> None:
        self.machine = state.machine()
        self.seq = state.seq
        self.alerts, self.decisions = state.alerts, Decisions(state.decisions)
        self.duty.restore(state.dealers, state.dealer)

    def flush_snapshots(self) -> None:
        """Wait until the snapshots handed to the writer are written (tests, benchmarks)."""
        self._restart.flush()

    def close(self) -> None:
        """Take a last snapshot (so the next start replays nothing) and stop the writer."""
        with self._lock:
            self._restart.take(self, unwritten=True)
        self._restart.close()

    # ---- the one path in ------------------------------------------------------------------
    def observe(self, obj: Mapping[str, Any]) -> int:
        """Validate, log, apply and publish one observation; returns its log seq."""
        with self._lock:
            seq = self._record(dict(obj), run_watchers=True)
            self._publish()
            self._restart.take(self)
            return seq

    def _record(self, obj: dict[str, Any], run_watchers: bool) -> int:
        obj.setdefault("ts", self._clock())
        if obj.get("type") == "bets_closed":
            self.duty.stamp(obj)  # the game this starts names its dealer
        if obj.get("type") == "new_shoe" and "shoe_id" not in obj:
            obj.update(self._shoe_settings(obj["ts"]))
        try:
            event = parse_event(obj)
        except TraceError as e:
            raise Refused(f"{event_type(obj)} refused: {e}") from None
        try:
            seq = self._log.append(obj)  # first: nothing acts on an event the log lacks
        except ValueError as e:
            raise Refused(f"{event_type(obj)} refused by the log: {e}") from None
        self._apply(event, seq, obj, replaying=not run_watchers)
        if event.TYPE == "end_shoe":
            self._checkpoint_shoe()
        return seq

    def _checkpoint_shoe(self) -> None:
        """A finished shoe gets its own (signed, when the table has its key) checkpoint, so an
        attacker with the file can hide no finished shoe, however few events it had."""
        checkpoint = getattr(self._log, "checkpoint", None)
        if checkpoint is None:  # a log without checkpoints (tests' memory log)
            return
        try:
            checkpoint()
        except Exception as e:  # the events are safe; the next periodic checkpoint covers them
            _log.warning("table %s: no checkpoint at the shoe's end: %s", self.table_id, e)

    def _apply(self, event: Event, seq: int, obj: Mapping[str, Any], replaying: bool) -> None:
        self.seq = seq
        machine = self.machine
        before = len(machine.shoes)
        machine.apply(event)
        self._changed(event, seq, obj, before)
        if event.TYPE == "bets_closed":
            self.duty.dealt(machine, obj.get("dealer"), obj.get("ts"))
        if isinstance(event, Noted) and event.kind == "side_bet_alert":
            self.alerts.append({**obj, "seq": seq,
                                "shoe_id": machine.shoe.shoe_id if machine.shoe else None})
        elif event.TYPE == "decision":
            self.decisions.add(seq, obj, machine)
        self._watch(event, replaying)

    def _watch(self, event: Event, replaying: bool) -> None:
        for watch in self._watchers:
            try:
                produced = watch(event, self.machine)
            except Exception:  # surveillance is an aid: it must never stop the table
                _log.exception("a watcher of table %s failed on %s", self.table_id, event.TYPE)
                continue
            if not replaying:
                for extra in produced:
                    self._record({**extra, "ts": event.ts}, run_watchers=False)

    def _changed(self, event: Event, seq: int, obj: Mapping[str, Any], before: int) -> None:
        """Note what the event changed for the next snapshot and the review counts. The machine
        changes only its current shoe (and the one a new shoe ends), but for a decision on an
        earlier shoe."""
        shoes = self.machine.shoes
        touched = list(range(max(before - 1, 0), len(shoes)))
        kind = event.TYPE
        if kind == "decision" and obj.get("shoe_id"):
            touched += [i for i, shoe in enumerate(shoes) if shoe.shoe_id == obj["shoe_id"]]
        for index in touched:
            self._counts.changed(index)
        self._restart.applied(seq, kind, touched)

    def _shoe_settings(self, ts: str) -> dict[str, Any]:
        """A shoe's NEWSHOE button carries no settings: the table's house rules apply."""
        stamp = ts[:19].replace("-", "").replace(":", "")
        shoe_id = f"{self.table_id}-{stamp}"
        if any(s.shoe_id == shoe_id for s in self.machine.shoes):
            shoe_id += f"-{len(self.machine.shoes) + 1}"
        return {"shoe_id": shoe_id, **self.house.as_dict()}

    # ---- what people do -------------------------------------------------------------------
    def decide(self, by: str, game: int, action: str, reason: str, *, shoe_id: str | None = None,
               player: Sequence[str] = (), banker: Sequence[str] = ()) -> int:
        """Record a supervisor's decision on a game; Refused says what is wrong,
        AlreadyDecided that another decision settles the game (checked and appended under
        the lock: of two decisions that arrive together, exactly one is recorded)."""
        with self._lock:
            return self.observe(self.decisions.event(self.machine, by, game, action, reason,
                                                     shoe_id, player, banker))

    def reveal(self, side: str | None = None, src: str = "dealer") -> int:
        """The dealer marks the cards on the table as opened (no camera sees them)."""
        event: dict[str, Any] = {"src": src, "type": "reveal"}
        if side is not None:
            event["side"] = side
        return self.observe(event)

    def sign_in(self, dealer: str) -> str | None:
        """`dealer` takes the table (rotation: whoever was there is relieved); returns the
        dealer relieved. The games whose bets close from now on name `dealer`."""
        name = dealer_name(dealer)
        with self._lock:
            relieved = None
            if self.duty.dealer != name:
                relieved = self.duty.sign_in(name, self._clock())
                _log.info("table %s: dealer %s signed in%s", self.table_id, name,
                          f", relieving {relieved}" if relieved else "")
            self._publish(force=True)
            return relieved

    def sign_out(self, dealer: str | None = None) -> str | None:
        """The dealer at the table is relieved with no one after (None if no one was there).
        With `dealer`, only that dealer is (a dealer signs out only themself)."""
        with self._lock:
            was = self.duty.sign_out(only=dealer)
            if was is not None:
                _log.info("table %s: dealer %s signed out", self.table_id, was)
                self._publish(force=True)
            return was

    # ---- links (services/link_health.py) --------------------------------------------------
    def link_changed(self, device: str, status: str, reason: str, ts: str | None = None) -> None:
        """A link (shoe, camera) went up or down: shown at once, and logged."""
        ts = ts or self._clock()
        with self._lock:
            self._record(self._links.change(device, status, reason, ts), run_watchers=False)
            self._publish()
            self._restart.take(self)

    def interrupted(self, reason: str) -> int | None:
        """The system's own interruption (services/interruptions.py): logged while a shoe is
        open; returns its seq (None: no shoe was open, nothing logged)."""
        with self._lock:
            event = interruption(self.machine, reason)
            return None if event is None else self.observe(event)

    def link_problem(self, device: str, kind: str) -> None:
        """Count a frame the link dropped (checksum, noise...): the console shows the counts."""
        with self._lock:
            self._links.problem(device, kind)


def _logged(seq: int, obj: Mapping[str, Any]) -> Event:
    """An event read back from the log (it validated when it was appended)."""
    try:
        return parse_event(obj)
    except TraceError as e:
        raise RuntimeError(f"event {seq} of the log does not validate: {e}") from None
