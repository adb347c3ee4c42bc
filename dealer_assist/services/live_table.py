"""The live table: what comes from the shoe, the camera, the dealer and supervisors, in order.

Theory of operation. Every observation takes one path, under one lock (so the log's order is
the order the table machine sees):

    dict in -> validate (parse_event) -> append to the log -> apply to the machine
            -> watchers (side-bet surveillance: their alerts are appended and applied too)
            -> publish: the public view and the review count go to every subscriber

The log comes first: an observation the log refuses (or cannot take: disk full) changes
nothing, and the caller gets the error. An observation that does not validate is `Refused`
and never logged. On start the service replays the log into a fresh machine (the watchers
see it too, their alerts discarded: they are in the log already), so a restart carries on
mid-shoe exactly where it was. With `snapshots` it loads the newest snapshot that matches
the log and replays only the events after it; services/restart.py says how, and when a
snapshot is taken (each shoe's end, every `snapshot_every` events, `close()`).

A supervisor's decision is a `decision` event with the logged-in user as `by`, a required
reason, and the shoe it concerns. A correction must be a hand the rules complete: the
third cards the rules give, no more, no fewer. Link status (shoe, camera) lives in memory,
each change also logged as a `link_status` event (services/link_health.py, with the health
signals `/metrics` reads). The system's own interruptions (a restart on an open shoe, the shoe's
link lost) are `interrupted` events, written by `interrupted` (services/interruptions.py).

One decision per flagged game: `decide` checks that the game is not already decided and
appends under the one lock, so of a console's and a floor request's decision on one game that
arrive together exactly one is recorded; the other is `AlreadyDecided`. The supervisor's
history is a read model kept as decisions are applied (services/decisions.py).

The dealer on every game (services/dealer_duty.py, which the live table owns): a dealer signs
in (`sign_in`) and is relieved by the next sign-in or a sign-out (`sign_out`); every
`bets_closed` logged meanwhile names that dealer; `dealt_games` lists each game's dealer (a
shift, a run of games by one dealer, is charts.data's).

This module knows no store, web or hardware: the log is anything with `append` and `replay`
(see `TableLog`), the snapshots anything like `Snapshots`; bootstrap wires the real ones in.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol

from dealer_assist.domain.cards import CardError, parse_card
from dealer_assist.domain.events import (
    DECISION_ACTIONS,
    MAX_REASON,
    Event,
    Noted,
    TraceError,
    parse_event,
    trace_time,
)
from dealer_assist.domain.excerpt import shown
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.rules import HandError, check_hand
from dealer_assist.domain.table import TableMachine
from dealer_assist.services import public_view as views
from dealer_assist.services.dealer_duty import MAX_NAME, DealerDuty
from dealer_assist.services.decisions import Decisions, ReviewCounts
from dealer_assist.services.interruptions import interruption
from dealer_assist.services.link_health import Links, signals
from dealer_assist.services.restart import Restart
from dealer_assist.services.snapshots import Snapshots
from dealer_assist.services.table_state import TableState, settings_key

_log = logging.getLogger(__name__)


class TableLog(Protocol):
    """The event log as the live table needs it (store.SqliteEventLog, store.MemoryEventLog)."""

    def append(self, event: Mapping[str, Any]) -> int: ...

    def replay(self) -> Iterator[dict[str, Any]]: ...


def _plain(value: Any) -> str:
    """A name for an error message as it is when short and printable, else a short excerpt."""
    if isinstance(value, str) and 0 < len(value) <= 40 and value.isprintable():
        return value
    return shown(value)


def _kind(obj: Mapping[str, Any]) -> str:
    """An event's type for an error message: short, whatever a client sent."""
    return _plain(obj.get("type", "event"))


class Refused(ValueError):
    """An observation or a decision the table does not take; nothing was logged."""


class AlreadyDecided(Refused):
    """A decision on a game that another decision already settles (services/decisions.py);
    `decided` is that decision's (seq, by, reason), as floor/requests.py reads it."""

    def __init__(self, shoe_id: str, game: int, prior: Mapping[str, Any]) -> None:
        self.decided = (prior["seq"], prior["by"], prior["reason"])
        if prior["seq"] is None:
            text = f"game {game} of shoe {_plain(shoe_id)} is already decided"
        else:
            text = (f"game {game} of shoe {_plain(shoe_id)} is already decided: "
                    f"{prior['action']} by {_plain(prior['by'])} (seq {prior['seq']}): "
                    f"{prior['reason']}")
        super().__init__(text)


#: Watches each applied event; returns events to record (without `ts`), e.g. side-bet alerts.
#: A watcher keeps state only within a shoe (it starts afresh at `new_shoe`): after a restart
#: from a snapshot it sees the current shoe's events again, with the machine as restored.
Watcher = Callable[[Event, TableMachine], list[dict[str, Any]]]


@dataclass(frozen=True)
class Update:
    """What subscribers get after every change: the public view and the review count."""

    seq: int
    public: dict[str, Any]
    pending_reviews: int
    alerts: int
    #: Changes whenever the review queue, a decision or the alerts change (the console reloads).
    review_key: str


Listener = Callable[[Update], None]


def utc_stamp(moment: datetime | None = None) -> str:
    """A trace timestamp (UTC, milliseconds, Z)."""
    return trace_time(moment or datetime.now(UTC))


class LiveTable:
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
            if "dealer" in obj and not (isinstance(obj["dealer"], str)
                                        and 0 < len(obj["dealer"].strip()) <= MAX_NAME):
                raise Refused(f"bets_closed refused: field 'dealer' must be a dealer's name "
                              f"(1 to {MAX_NAME} characters), got {shown(obj['dealer'])}")
            self.duty.stamp(obj)  # the game this starts names its dealer
        if obj.get("type") == "new_shoe" and "shoe_id" not in obj:
            obj.update(self._shoe_settings(obj["ts"]))
        try:
            event = parse_event(obj)
        except TraceError as e:
            raise Refused(f"{_kind(obj)} refused: {e}") from None
        try:
            seq = self._log.append(obj)  # first: nothing acts on an event the log lacks
        except ValueError as e:
            raise Refused(f"{_kind(obj)} refused by the log: {e}") from None
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
        if action not in DECISION_ACTIONS:
            raise Refused(f"decision {shown(action)}: one of {', '.join(DECISION_ACTIONS)}")
        reason = " ".join(str(reason).split())
        if not reason:
            raise Refused("a decision needs a reason")
        if len(reason) > MAX_REASON:
            raise Refused(f"a reason has at most {MAX_REASON} characters")
        if not by.strip():
            raise Refused("a decision needs the supervisor who made it")
        with self._lock:
            found = views.find_game(self.machine, shoe_id, game)
            if found is None:
                where = f"shoe {_plain(shoe_id)}" if shoe_id else "the current shoe"
                raise Refused(f"{where} has no game {_plain(game)}")
            shoe, target = found
            prior = self.decisions.settled(shoe, target, action)
            if prior is not None:
                raise AlreadyDecided(shoe.shoe_id, game, prior)
            event: dict[str, Any] = {"src": "supervisor", "type": "decision", "game": game,
                                     "action": action, "by": by, "reason": reason,
                                     "shoe_id": shoe.shoe_id}
            if action == "correct":
                try:
                    p = [parse_card(c) for c in player]
                    b = [parse_card(c) for c in banker]
                    check_hand(p, b, target.seven_up)
                except CardError as e:
                    raise Refused(f"correction: {e}") from None
                except HandError as e:
                    raise Refused(str(e)) from None
                event.update(player=p, banker=b)
            return self.observe(event)

    def reveal(self, side: str | None = None, src: str = "dealer") -> int:
        """The dealer marks the cards on the table as opened (no camera sees them)."""
        event: dict[str, Any] = {"src": src, "type": "reveal"}
        if side is not None:
            event["side"] = side
        return self.observe(event)

    def sign_in(self, dealer: str) -> str | None:
        """`dealer` takes the table (rotation: whoever was there is relieved); returns the
        dealer relieved. The games whose bets close from now on name `dealer`."""
        name = " ".join(str(dealer).split())
        if not name:
            raise Refused("a dealer signs in with a name")
        if len(name) > MAX_NAME:
            raise Refused(f"a dealer's name has at most {MAX_NAME} characters")
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
            was = self.duty.dealer
            if was is None:
                return None
            if dealer is not None and dealer != was:
                raise Refused(f"{_plain(dealer)} is not the dealer at the table ({was} is)")
            self.duty.sign_out()
            _log.info("table %s: dealer %s signed out", self.table_id, was)
            self._publish(force=True)
            return was

    # ---- links ----------------------------------------------------------------------------
    @property
    def links(self) -> dict[str, dict[str, Any]]:
        """Each link (shoe, camera): status, reason, since (services/link_health.py)."""
        return self._links.state

    @property
    def link_problems(self) -> dict[str, int]:
        """The frames each link dropped, by "device:kind"."""
        return self._links.problems

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

    # ---- subscribers ----------------------------------------------------------------------
    def subscribe(self, listener: Listener) -> Callable[[], None]:
        """Call `listener(update)` after every change (on the thread that made it)."""
        with self._lock:
            self._listeners.append(listener)

        def unsubscribe() -> None:
            with self._lock:
                if listener in self._listeners:
                    self._listeners.remove(listener)
        return unsubscribe

    def _public(self) -> dict[str, Any]:
        return views.public_view(self.machine, self.paytables, self.table_id,
                                 self._links.details(), self.seq)

    def _publish(self, force: bool = False) -> None:
        public = self._public()
        pending, key = self._review_state()
        same = (not force and self._last_public is not None and key == self._last_key
                and {**public, "seq": 0} == {**self._last_public, "seq": 0})
        self._last_public, self._last_key = public, key
        if same:
            return
        update = Update(self.seq, public, pending, len(self.alerts), key)
        for listener in list(self._listeners):
            try:
                listener(update)
            except Exception:  # one broken screen must not stop the table
                _log.exception("a subscriber of table %s failed", self.table_id)

    def _review_state(self) -> tuple[int, str]:
        return self._counts.state(self.machine, len(self.decisions), len(self.alerts))

    # ---- reads ----------------------------------------------------------------------------
    def signals(self) -> dict[str, Any]:
        """What operations watch (`/metrics`): the log's seq, the time of the last event,
        flags raised by code, the links, and the last snapshot's seq and time."""
        with self._lock:
            return signals(self.machine, self.seq, self._links, self._restart.writer)

    def on_duty(self) -> dict[str, Any]:
        """The dealer at the table now (None) and since when."""
        with self._lock:
            return self.duty.on_duty()

    def dealt_games(self) -> list[dict[str, Any]]:
        """Every game of the log, oldest first, with its dealer (None: no dealer signed in):
        shoe, game, dealer, start, end, flag codes, review, status (charts.data's rows)."""
        with self._lock:
            return self.duty.games(self.machine)

    def shoe_reports(self) -> list[dict[str, Any]]:
        """The audit's view of every shoe (`domain.report.shoe_view`), oldest first."""
        with self._lock:
            return [shoe_view(shoe, self.paytables) for shoe in self.machine.shoes]

    def link_details(self) -> dict[str, dict[str, Any]]:
        """Each link with the device's own words (for supervisors; the public view has plain
        words only)."""
        with self._lock:
            return self._links.details()

    def public(self) -> dict[str, Any]:
        with self._lock:
            return self._last_public or self._public()

    def update(self) -> Update:
        """The latest state, as subscribers get it."""
        with self._lock:
            pending, key = self._review_state()
            return Update(self.seq, self.public(), pending, len(self.alerts), key)

    def review_queue(self) -> list[dict[str, Any]]:
        with self._lock:
            return views.review_queue(self.machine, self.paytables)

    def review(self, shoe_id: str | None, game: int) -> dict[str, Any] | None:
        with self._lock:
            found = views.find_game(self.machine, shoe_id, game)
            if found is None:
                return None
            shoe, g = found
            return views.review_item(shoe, g, self.paytables[shoe.house.variant])

    def shoes(self) -> list[dict[str, Any]]:
        with self._lock:
            return views.shoe_summaries(self.machine)

    def side_bet_alerts(self, limit: int = 50) -> list[dict[str, Any]]:
        with self._lock:
            return [dict(a) for a in self.alerts[-limit:]][::-1]

    def history(self, shoe_id: str | None = None, flag: str | None = None) -> list[dict[str, Any]]:
        """The log's decisions (kept as they are appended), newest first, by shoe and by flag
        code; each with the flag codes its game has now."""
        with self._lock:
            return self.decisions.history(self.machine, shoe_id, flag)


def _logged(seq: int, obj: Mapping[str, Any]) -> Event:
    """An event read back from the log (it validated when it was appended)."""
    try:
        return parse_event(obj)
    except TraceError as e:
        raise RuntimeError(f"event {seq} of the log does not validate: {e}") from None
