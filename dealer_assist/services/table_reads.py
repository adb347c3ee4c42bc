"""What the screens get from the live table: every change pushed, and the queries they make.

Pushed: after every change the live table publishes an `Update` (the public view and the
review count) to each subscriber, on the thread that made the change; an update that would
show nothing new is not sent (`force` sends it anyway: a dealer's sign-in changes no view).
Pulled: the console's review queue, a game under review, the shoes, the side-bet alerts and
the decisions' history; the dealer's page's dealer on duty; the charts' dealt games; the
links and `/metrics`' signals.

Every query takes the live table's one lock and reads the state its seams keep
(services/decisions.py, dealer_duty.py, link_health.py, public_view.py): none re-folds the
log. `TableReads` is a mixin of `LiveTable` (services/live_table.py), not an object of its
own: a query reads the same state under the same lock as the writes, and a collaborator
would only forward every one of them to the table. The attributes it reads are declared
below and set by `LiveTable.__init__`.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.report import shoe_view
from dealer_assist.domain.table import TableMachine
from dealer_assist.services import public_view as views
from dealer_assist.services.dealer_duty import DealerDuty
from dealer_assist.services.decisions import Decisions, ReviewCounts
from dealer_assist.services.link_health import Links, signals
from dealer_assist.services.restart import Restart

_log = logging.getLogger("dealer_assist.services.live_table")


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


class TableReads:
    """The live table's subscribers and queries (see the module docstring)."""

    # Set by LiveTable.__init__ (services/live_table.py).
    table_id: str
    paytables: dict[str, PayTable]
    machine: TableMachine
    seq: int
    alerts: list[dict[str, Any]]
    decisions: Decisions
    duty: DealerDuty
    _lock: threading.RLock
    _links: Links
    _restart: Restart
    _counts: ReviewCounts
    _listeners: list[Listener]
    _last_public: dict[str, Any] | None
    _last_key: str

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

    def public(self) -> dict[str, Any]:
        with self._lock:
            return self._last_public or self._public()

    def update(self) -> Update:
        """The latest state, as subscribers get it."""
        with self._lock:
            pending, key = self._review_state()
            return Update(self.seq, self.public(), pending, len(self.alerts), key)

    # ---- the review console ---------------------------------------------------------------
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

    def shoe_reports(self) -> list[dict[str, Any]]:
        """The audit's view of every shoe (`domain.report.shoe_view`), oldest first."""
        with self._lock:
            return [shoe_view(shoe, self.paytables) for shoe in self.machine.shoes]

    # ---- the dealer on duty (services/dealer_duty.py) -------------------------------------
    def on_duty(self) -> dict[str, Any]:
        """The dealer at the table now (None) and since when."""
        with self._lock:
            return self.duty.on_duty()

    def dealt_games(self) -> list[dict[str, Any]]:
        """Every game of the log, oldest first, with its dealer (None: no dealer signed in):
        shoe, game, dealer, start, end, flag codes, review, status (charts.data's rows)."""
        with self._lock:
            return self.duty.games(self.machine)

    # ---- links and health (services/link_health.py) ---------------------------------------
    @property
    def links(self) -> dict[str, dict[str, Any]]:
        """Each link (shoe, camera): status, reason, since (services/link_health.py)."""
        return self._links.state

    @property
    def link_problems(self) -> dict[str, int]:
        """The frames each link dropped, by "device:kind"."""
        return self._links.problems

    def link_details(self) -> dict[str, dict[str, Any]]:
        """Each link with the device's own words (for supervisors; the public view has plain
        words only)."""
        with self._lock:
            return self._links.details()

    def signals(self) -> dict[str, Any]:
        """What operations watch (`/metrics`): the log's seq, the time of the last event,
        flags raised by code, the links, and the last snapshot's seq and time."""
        with self._lock:
            return signals(self.machine, self.seq, self._links, self._restart.writer)
