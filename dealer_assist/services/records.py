"""What the regulator's pages read: each table's shoes by day, their games, flags, decisions,
and exports to download.

A day is the site's gaming day (`config.gaming_day`: its zone and the local hour it starts;
23 or 25 hours long on a clock change). A day's view is exactly what an export of that day
holds: the events stamped in that gaming day, widened to whole shoes, re-audited
(`export.reaudit`). A ruling made on a later day about a game of this day shows in that later
day's decisions.

Theory of operation. A day's view is a read model, not a fold per page. The log is append-
only, so a view is fixed by the seqs its day covers (`plan_range`): while they stay the same,
the view does too. A closed day (a newer shoe has started after it, so its range can no longer
grow) keeps only its finished view. The open day keeps its re-audit running as well: a page
feeds it the events appended since the last one and finishes a copy of it. Every shoe of the
open day stays open in that re-audit (a ruling appended later may still reach any of them),
and finishing a shoe writes the same rows whenever it happens, so the view equals one re-audit
of the whole range.
"""

from __future__ import annotations

import copy
import json
import sys
import tempfile
import threading
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.config.gaming_day import GamingDay
from dealer_assist.domain.paytable import PayTable
from dealer_assist.export.reaudit import Reaudit
from dealer_assist.export.rows import DECISION_COLUMNS, FLAG_COLUMNS, GAME_COLUMNS, Row
from dealer_assist.export.source import (
    LogSource,
    NothingToExport,
    day_range,
    plan_range,
    stamp,
)
from dealer_assist.export.writer import Written, write_export


class UnknownTable(LookupError):
    """No log of that table here."""


class NotSigning(RuntimeError):
    """This service has no signing key, so it writes no export."""


@dataclass
class ShoeView:
    """One shoe of a day: its settings, its games and its flags, as rows of the export."""

    settings: dict[str, Any]
    games: list[dict[str, str]] = field(default_factory=list)
    flags: list[dict[str, str]] = field(default_factory=list)

    @property
    def flagged_games(self) -> int:
        return sum(1 for g in self.games if g["flags"])

    @property
    def pending(self) -> int:
        return sum(1 for g in self.games if g["review"] == "pending")


@dataclass
class DayView:
    """A table's day as the regulator reads it: the seqs it covers, its shoes, its decisions."""

    table: str
    day: date
    first_seq: int | None = None
    last_seq: int | None = None
    shoes: list[ShoeView] = field(default_factory=list)
    decisions: list[dict[str, str]] = field(default_factory=list)


class _Collect:
    """Rows of a day, kept by shoe (a day is small; an export streams instead)."""

    def __init__(self, view: DayView) -> None:
        self.view = view
        self._by_seq: dict[str, ShoeView] = {}

    def shoe(self, settings: dict[str, Any]) -> None:
        shoe = ShoeView(settings)
        self.view.shoes.append(shoe)
        self._by_seq[str(settings["shoe_seq"])] = shoe

    def game(self, row: Row) -> None:
        self._by_seq[row[2]].games.append(dict(zip(GAME_COLUMNS, row, strict=True)))

    def flag(self, row: Row) -> None:
        self._by_seq[row[2]].flags.append(dict(zip(FLAG_COLUMNS, row, strict=True)))

    def decision(self, row: Row) -> None:
        self.view.decisions.append(dict(zip(DECISION_COLUMNS, row, strict=True)))


class _DayFold:
    """The re-audit of one day's range, fed as the log grows; every shoe kept open."""

    def __init__(self, table: str, day: date, paytables: dict[str, PayTable],
                 first_seq: int) -> None:
        self.first_seq = first_seq
        self.fed_seq = first_seq - 1
        #: Shoe number -> the last position a ruling may reach it from: every shoe, always.
        self._held: dict[int, int] = {}
        self._rows = _Collect(DayView(table, day))
        self._reaudit = Reaudit(table, paytables, self._held, self._rows)
        self.view: DayView | None = None

    def catch_up(self, source: LogSource, last_seq: int) -> DayView:
        """Feed the events up to `last_seq` not fed yet; the view of first_seq..last_seq."""
        reaudit = self._reaudit
        if self.view is None or last_seq > self.fed_seq:
            for record in source.records(self.fed_seq + 1, last_seq):
                self._held[reaudit.tracker.count + 1] = sys.maxsize
                reaudit.feed(record.seq - self.first_seq, record.seq, json.loads(record.body))
            self.fed_seq = last_seq
            # Finish a copy, the running fold goes on. Finishing reads the shoes and never
            # changes them, so the copy shares them (copying every game would cost a re-fold).
            shared: dict[int, Any] = {id(shoe): shoe for shoe in reaudit.machine.shoes}
            shared[id(reaudit.paytables)] = reaudit.paytables
            done, rows = copy.deepcopy((reaudit, self._rows), shared)
            done.finish()
            view = rows.view
            view.first_seq, view.last_seq = self.first_seq, last_seq
            self.view = view
        return self.view


class TableRecords:
    """The tables' logs (read-only) and the signing of exports, for the regulator's pages.

    Keeps each day's view once built (see the module doc); thread-safe.
    """

    def __init__(
        self,
        logs: Mapping[str, LogSource],
        paytables: dict[str, PayTable],
        signing_key: Callable[[], Ed25519PrivateKey] | None = None,
        gaming_day: GamingDay | None = None,
    ) -> None:
        self.logs = dict(logs)
        #: The site's zone and gaming-day start: the days of the pages and the times shown.
        self.gaming_day = gaming_day or GamingDay()
        self.paytables = paytables
        self.signing_key = signing_key
        self._lock = threading.Lock()
        #: (table, day) -> the finished view of a closed day, or the running fold of an open one.
        self._days: dict[tuple[str, date], DayView | _DayFold] = {}

    def tables(self) -> list[str]:
        return sorted(self.logs)

    def source(self, table: str) -> LogSource:
        try:
            return self.logs[table]
        except KeyError:
            raise UnknownTable(f"no table {table!r} here; tables: "
                               f"{', '.join(self.tables()) or 'none'}") from None

    def days(self, table: str, month: date) -> list[tuple[date, int]]:
        """(gaming day, shoes started that day) for the gaming days of `month` on which a shoe
        started."""
        start = self.gaming_day.start(month.replace(day=1))
        end = self.gaming_day.start(date(month.year + month.month // 12, month.month % 12 + 1, 1))
        starts = self.source(table).shoe_starts(stamp(start), stamp(end))
        counts: dict[date, int] = {}
        for _seq, ts in starts:
            day = self.gaming_day.day_of(ts)
            counts[day] = counts.get(day, 0) + 1
        return sorted(counts.items())

    def day(self, table: str, day: date) -> DayView:
        """The shoes, games, flags and decisions of gaming day `day`, as its export holds
        them."""
        source = self.source(table)
        try:
            span = plan_range(source, *day_range(day, self.gaming_day))
        except NothingToExport:
            return DayView(table, day)
        closed = span.last_seq < source.head()[0]  # a newer shoe started: the range is final
        with self._lock:
            kept = self._days.get((table, day))
            if isinstance(kept, DayView) and (kept.first_seq, kept.last_seq) == (
                    span.first_seq, span.last_seq):
                return kept
            fold = kept if isinstance(kept, _DayFold) else None
            if fold is None or fold.first_seq != span.first_seq or fold.fed_seq > span.last_seq:
                fold = _DayFold(table, day, self.paytables, span.first_seq)
            view = fold.catch_up(source, span.last_seq)
            self._days[(table, day)] = view if closed else fold
            return view

    def export(self, table: str, start: datetime, end: datetime, folder: Path) -> Written:
        """Write the signed export of [start, end) into `folder`; NotSigning without a key."""
        if self.signing_key is None:
            raise NotSigning("this service has no signing key: set DEALER_ASSIST_SIGNING_KEY")
        source = self.source(table)
        span = plan_range(source, start, end)
        key = self.signing_key()
        name = f"{table}_{self.gaming_day.day_of(start)}_{self.gaming_day.day_of(end)}.zip"
        out = Path(tempfile.mkdtemp(prefix="export-", dir=folder)) / name
        return write_export(source, span, table=table, out=out, key=key,
                            paytables=self.paytables)
