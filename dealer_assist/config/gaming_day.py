"""The site's gaming day: the casino's local day the regulator counts in, and local times shown.

The log keeps UTC; people read the site's clock. A site has a time zone (an IANA name, such
as Europe/London) and a local hour its gaming day starts at (say 06:00). Gaming day D runs
from D at that hour, local, to D+1 at that hour, local, whatever daylight saving does: the
gaming day the clocks go forward in is an hour short (23 hours), the one they go back in an
hour long (25); with a 06:00 start, that is the day before the Sunday of the change.

A start hour that a clock change skips (01:00 where the clocks jump from 01:00 to 02:00) is
taken at the offset before the change; one that happens twice, at its first occurrence.
The default, UTC from midnight, is the calendar day in UTC.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError


class UnknownZone(ValueError):
    """A time zone name that the IANA database on this machine does not know."""


def site_zone(name: str) -> ZoneInfo:
    """The IANA time zone `name` (Europe/London, America/New_York, UTC...)."""
    try:
        return ZoneInfo(name)
    except (ZoneInfoNotFoundError, ValueError):
        raise UnknownZone(f"{name!r} is not an IANA time zone name "
                          "(e.g. Europe/London, America/New_York, UTC)") from None


@dataclass(frozen=True)
class GamingDay:
    """The site's time zone and the local hour its gaming day starts at (0-23)."""

    zone: ZoneInfo = field(default_factory=lambda: ZoneInfo("UTC"))
    start_hour: int = 0

    def __post_init__(self) -> None:
        if not 0 <= self.start_hour <= 23:
            raise ValueError(f"a gaming day starts at a whole hour from 0 to 23, "
                             f"not {self.start_hour!r}")

    def start(self, day: date) -> datetime:
        """The instant gaming day `day` starts, in UTC (ValueError past the calendar's ends)."""
        local = datetime(day.year, day.month, day.day, self.start_hour, tzinfo=self.zone)
        try:
            return local.astimezone(UTC)
        except OverflowError:
            raise ValueError(f"gaming day {day} is out of range") from None

    def bounds(self, day: date) -> tuple[datetime, datetime]:
        """[start, end) of gaming day `day`, in UTC: 24 hours long, or 23 or 25 on a clock
        change."""
        if day == date.max:
            raise ValueError(f"gaming day {day} is out of range")
        return self.start(day), self.start(day + timedelta(days=1))

    def day_of(self, moment: datetime | str) -> date:
        """The gaming day an instant (or a log time, ISO 8601) belongs to."""
        local = self.local(moment)
        day = local.date()
        return day - timedelta(days=1) if local.hour < self.start_hour else day

    def local(self, moment: datetime | str) -> datetime:
        """An instant (or a log time, ISO 8601; UTC unless it says otherwise) on the site's
        clock."""
        if isinstance(moment, str):
            moment = datetime.fromisoformat(moment)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(self.zone)

    def show(self, moment: datetime | str | None) -> str:
        """An instant or a log time as people read it: local, to the second, with the zone's
        abbreviation (or offset), e.g. `2026-03-29 07:15:02 BST`; '' for none, the text itself
        if it is no time."""
        if not moment:
            return ""
        try:
            local = self.local(moment)
        except ValueError:
            return str(moment)
        return local.strftime("%Y-%m-%d %H:%M:%S %Z")

    def show_time(self, ts: str | None) -> str:
        """A log time's local time of day with the zone, e.g. `07:15:02 BST` (a day's tables)."""
        return self.show(ts)[11:]

    def describe(self) -> str:
        """The rule in words, e.g. `Europe/London, from 06:00`."""
        return f"{self.zone.key}, from {self.start_hour:02d}:00"
