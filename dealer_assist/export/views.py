"""What the regulator's pages read: each table's shoes by day, their games, flags, decisions,
and exports to download.

A day's view is exactly what an export of that day holds: the events stamped that day (UTC),
widened to whole shoes, re-audited (`reaudit`). A ruling made on a later day about a game of
this day shows in that later day's decisions.
"""

from __future__ import annotations

import json
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.domain.paytable import PayTable
from dealer_assist.export.reaudit import NEEDLES, Reaudit, decision_reach
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


class TableRecords:
    """The tables' logs (read-only) and the signing of exports, for the regulator's pages."""

    def __init__(
        self,
        logs: Mapping[str, LogSource],
        paytables: dict[str, PayTable],
        signing_key: Callable[[], Ed25519PrivateKey] | None = None,
    ) -> None:
        self.logs = dict(logs)
        self.paytables = paytables
        self.signing_key = signing_key

    def tables(self) -> list[str]:
        return sorted(self.logs)

    def source(self, table: str) -> LogSource:
        try:
            return self.logs[table]
        except KeyError:
            raise UnknownTable(f"no table {table!r} here; tables: "
                               f"{', '.join(self.tables()) or 'none'}") from None

    def days(self, table: str, month: date) -> list[tuple[date, int]]:
        """(day, shoes started that day) for the days of `month` on which a shoe started."""
        start = datetime(month.year, month.month, 1, tzinfo=UTC)
        end = datetime(month.year + month.month // 12, month.month % 12 + 1, 1, tzinfo=UTC)
        starts = self.source(table).shoe_starts(stamp(start), stamp(end))
        counts: dict[date, int] = {}
        for _seq, ts in starts:
            day = date.fromisoformat(ts[:10])
            counts[day] = counts.get(day, 0) + 1
        return sorted(counts.items())

    def day(self, table: str, day: date) -> DayView:
        """The shoes, games, flags and decisions of `day` (UTC), as its export holds them."""
        source = self.source(table)
        view = DayView(table, day)
        try:
            span = plan_range(source, *day_range(day))
        except NothingToExport:
            return view
        view.first_seq, view.last_seq = span.first_seq, span.last_seq
        first = span.first_seq
        reach = decision_reach((r.seq - first, json.loads(r.body))
                               for r in source.records(first, span.last_seq, NEEDLES))
        reaudit = Reaudit(table, self.paytables, reach, _Collect(view))
        for position, record in enumerate(source.records(first, span.last_seq)):
            reaudit.feed(position, record.seq, json.loads(record.body))
        reaudit.finish()
        return view

    def export(self, table: str, start: datetime, end: datetime, folder: Path) -> Written:
        """Write the signed export of [start, end) into `folder`; NotSigning without a key."""
        if self.signing_key is None:
            raise NotSigning("this service has no signing key: set DEALER_ASSIST_SIGNING_KEY")
        source = self.source(table)
        span = plan_range(source, start, end)
        key = self.signing_key()
        name = f"{table}_{span.requested_from[:10]}_{span.requested_to[:10]}.zip"
        out = Path(tempfile.mkdtemp(prefix="export-", dir=folder)) / name
        return write_export(source, span, table=table, out=out, key=key,
                            paytables=self.paytables)

