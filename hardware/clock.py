"""Time stamps as the devices write them: ISO 8601 UTC with milliseconds and a Z
(`2026-11-29T10:15:02.417Z`), the form of the table trace. The drivers know no baccarat, so
they keep this one small function of their own rather than import the application's."""

from __future__ import annotations

from datetime import UTC, datetime


def utc_stamp(moment: datetime | None = None) -> str:
    """`moment` (default: now) as a trace time stamp."""
    utc = (moment or datetime.now(UTC)).astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"
