"""The log an export reads, as a port, and the range of it an export covers.

A table's log is read through `LogSource` (the store implements it on the table's SQLite file,
read-only). Records come by seq (`logformat.Record`, `logformat.Point`); times select a range of
seqs.

How a time range becomes a range of the log: the export covers the events from the first one
stamped at or after FROM to the last one stamped before TO (the log is in the order things
happened, so this is one unbroken run of seqs), widened to whole shoes: back to the `new_shoe`
of the shoe the first event belongs to, and on to the last event before the next `new_shoe`
(or the end of the log). A shoe cut in half would audit differently from the whole shoe; a
whole shoe audits exactly as the table saw it, so every game in the export is complete in it.
Times are compared as the log writes them (ISO 8601 UTC with milliseconds and a Z).

A range asked for in days is in the site's gaming days (`config.gaming_day`): `--from 2026-03-29`
is the instant gaming day 2026-03-29 starts, e.g. 06:00 local, and a time without an offset is
the site's local time. Both become UTC instants before the log is read.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from datetime import UTC, date, datetime
from typing import Protocol

from dealer_assist.config.gaming_day import GamingDay
from dealer_assist.domain.events import trace_time
from dealer_assist.domain.excerpt import shown
from dealer_assist.logformat import Point, Record


class LogSource(Protocol):
    """A table's event log, read-only."""

    def head(self) -> tuple[int, str]:
        """(seq, hash) of the last event; (0, GENESIS) for an empty log."""
        ...

    def hash_at(self, seq: int) -> str | None:
        """The hash of the event at `seq` (GENESIS for seq 0), None if there is none."""
        ...

    def span(self, start: str, end: str) -> tuple[int, int] | None:
        """(first, last) seq of the events stamped in [start, end); None if there are none."""
        ...

    def shoe_start_at_or_before(self, seq: int) -> int | None:
        """The seq of the last `new_shoe` at or before `seq`."""
        ...

    def next_shoe_start_after(self, seq: int) -> int | None:
        """The seq of the first `new_shoe` after `seq`."""
        ...

    def shoe_starts(self, start: str, end: str) -> list[tuple[int, str]]:
        """(seq, ts) of every `new_shoe` stamped in [start, end), in order."""
        ...

    def records(self, first: int, last: int, containing: tuple[str, ...] = ()) -> Iterator[Record]:
        """Records first..last in seq order; with `containing`, only those whose body holds
        one of these strings."""
        ...

    def checkpoints(self, first: int, last: int) -> list[Point]:
        """The checkpoints of seqs first..last, in the order they were recorded."""
        ...


class EvidenceFrames(Protocol):
    """The camera's frames kept beside a table's log (store.evidence.EvidenceFolder)."""

    def frame(self, sha256: str) -> bytes | None:
        """The JPEG named by this SHA-256, None when it is not kept or no longer matches."""
        ...

    def status(self, sha256: str) -> str:
        """"kept", "damaged", "removed by retention" or "missing"."""
        ...


def evidence_of(source: object) -> EvidenceFrames | None:
    """The frames a source keeps beside its log (store.evidence.EvidencedLogSource: a table's
    own log); None for one that keeps none (the floor's central copy)."""
    found = getattr(source, "evidence", None)
    return found if callable(getattr(found, "frame", None)) else None


class NothingToExport(ValueError):
    """No event of the log lies in the time range asked for."""


@dataclass(frozen=True)
class ExportRange:
    """What an export covers: the times asked for and the seqs that cover them (whole shoes)."""

    requested_from: str
    requested_to: str
    first_seq: int
    last_seq: int

    @property
    def events(self) -> int:
        return self.last_seq - self.first_seq + 1


def plan_range(source: LogSource, start: datetime, end: datetime) -> ExportRange:
    """The range of the log an export of [start, end) covers (see the module docstring)."""
    if end <= start:
        raise ValueError(f"the time range is empty: {stamp(start)} is not before {stamp(end)}")
    begin, until = stamp(start), stamp(end)
    span = source.span(begin, until)
    if span is None:
        raise NothingToExport(f"the log has no event from {begin} to {until}")
    first, last = span
    shoe_first = source.shoe_start_at_or_before(first)
    if shoe_first is not None:
        first = shoe_first
    next_shoe = source.next_shoe_start_after(last)
    last = next_shoe - 1 if next_shoe is not None else source.head()[0]
    return ExportRange(begin, until, first, last)


def parse_when(text: str, site: GamingDay | None = None) -> datetime:
    """A time from the command line, in UTC: `2026-11-29` (the instant that gaming day starts),
    `2026-11-29T10:00` (the site's local time), `2026-11-29T10:00:00Z`,
    `2026-11-29T11:00+01:00`... Without `site`, days start at midnight UTC and a time without an
    offset is UTC."""
    site = site or GamingDay()
    value = text.strip()
    try:
        if len(value) == 10:  # a day alone: YYYY-MM-DD
            return site.start(date.fromisoformat(value))
        moment = datetime.fromisoformat(value)
    except ValueError:
        raise ValueError(
            f"{shown(text)} is not a time: write an ISO 8601 date or time such as 2026-11-29 "
            "or 2026-11-29T10:00:00Z"
        ) from None
    except OverflowError:  # the day's start falls before year 1 or after 9999 in UTC
        raise ValueError(f"{shown(text)} passes the calendar's ends (years 1 to 9999, UTC)") from None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=site.zone)
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(f"{shown(text)} passes the calendar's ends (years 1 to 9999, UTC)") from None


def day_range(day: date, site: GamingDay | None = None) -> tuple[datetime, datetime]:
    """[start, end) of gaming day `day` at `site`, in UTC; without `site`, the UTC calendar
    day."""
    return (site or GamingDay()).bounds(day)


#: `moment` as the log writes times (ISO 8601 UTC, milliseconds, Z).
stamp = trace_time


def ms_stamp(ts: str | None) -> str:
    """An event's `ts` in the one form the CSV files use (ISO 8601 UTC, ms, Z); '' for None.

    The system writes every time in that form already; others are converted (and a time that
    cannot be read is kept as it is, so nothing is hidden).
    """
    if not ts:
        return ""
    if len(ts) == 24 and ts[-1] == "Z" and ts[19] == ".":
        return ts
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return ts
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return stamp(moment)
