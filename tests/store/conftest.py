"""Fixtures of the store tests: both event logs behind one fixture, a clock to move by hand."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from dealer_assist.store.log import EventLog, MemoryEventLog
from dealer_assist.store.sqlite_log import SqliteEventLog


class FakeClock:
    """A clock that moves only when told to."""

    def __init__(self, start: datetime = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)) -> None:
        self.now = start

    def __call__(self) -> datetime:
        return self.now

    def advance(self, **delta: float) -> None:
        self.now += timedelta(**delta)


def trace_event(n: int, **fields: Any) -> dict[str, Any]:
    """A `card` event from the shoe, its time `n` seconds into the morning."""
    event: dict[str, Any] = {
        "ts": f"2026-11-29T10:{n // 60 % 60:02d}:{n % 60:02d}.{n % 1000:03d}Z",
        "src": "shoe",
        "type": "card",
        "card": ["7H", "2C", "TS", "3D", "KS", "AD", "9C", "QH"][n % 8],
    }
    event.update(fields)
    return event


LogFactory = Callable[..., EventLog]


@pytest.fixture
def make_event() -> Callable[..., dict[str, Any]]:
    return trace_event


@pytest.fixture
def clock() -> FakeClock:
    return FakeClock()


@pytest.fixture(params=["memory", "sqlite"])
def make_log(request: pytest.FixtureRequest, tmp_path: Path) -> Iterator[LogFactory]:
    """Opens a log of the parametrized kind; every one opened is closed after the test."""
    opened: list[EventLog] = []

    def factory(**options: Any) -> EventLog:
        log: EventLog
        if request.param == "memory":
            log = MemoryEventLog(**options)
        else:
            log = SqliteEventLog(tmp_path / "table.db", **options)
        opened.append(log)
        return log

    yield factory
    for log in opened:
        log.close()
