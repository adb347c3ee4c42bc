"""The service's log lines, on standard error, in a form journald or a person reads well.

Under systemd (standard error is the journal: `JOURNAL_STREAM` names its device and inode)
each line starts with the kernel-style priority prefix journald turns into the entry's level
(`<4>` warning, `<6>` info...), and carries no timestamp: the journal stamps every entry.
Anywhere else a line is `2026-12-05T10:15:00.123+00:00 WARNING dealer_assist.login: ...`,
the time in UTC with its offset.
"""

from __future__ import annotations

import logging
import os
import sys
from datetime import UTC, datetime
from typing import TextIO

#: syslog priorities of the standard library's levels (sd-daemon(3) prefixes).
_PRIORITY = {logging.DEBUG: 7, logging.INFO: 6, logging.WARNING: 4, logging.ERROR: 3,
             logging.CRITICAL: 2}


class JournalFormatter(logging.Formatter):
    """`<priority>logger: message` (journald stamps the time itself)."""

    def format(self, record: logging.LogRecord) -> str:
        priority = _PRIORITY.get(record.levelno, 6)
        text = f"{record.name}: {super().format(record)}"
        return "\n".join(f"<{priority}>{line}" for line in text.splitlines())


class TimeFormatter(logging.Formatter):
    """`ISO time (UTC) LEVEL logger: message`."""

    def __init__(self) -> None:
        super().__init__("%(asctime)s %(levelname)s %(name)s: %(message)s")

    def formatTime(self, record: logging.LogRecord, datefmt: str | None = None) -> str:  # noqa: N802
        return datetime.fromtimestamp(record.created, UTC).isoformat(timespec="milliseconds")


def to_journal(stream: TextIO) -> bool:
    """Whether `stream` is connected to the journal (systemd sets JOURNAL_STREAM=dev:inode)."""
    given = os.environ.get("JOURNAL_STREAM", "")
    try:
        stat = os.fstat(stream.fileno())
    except (OSError, ValueError, AttributeError):
        return False
    return given == f"{stat.st_dev}:{stat.st_ino}"


#: Our own loggers log from `level` (info: every login, start-up step, link change);
#: the libraries' (uvicorn...) from warnings only.
OURS = ("dealer_assist", "hardware")

#: Libraries whose warnings only repeat, in their own words, what our loggers already say:
#: psycopg's pool warns at each failed reconnect and a pipeline warns as it closes on a lost
#: connection, while the shipper and the floor service report the outage once, and again when
#: the store is back. Their errors still show.
QUIETED = ("psycopg",)


def setup(level: int = logging.INFO, stream: TextIO | None = None) -> logging.Handler:
    """Send every logger's lines to `stream` (standard error); calling it again replaces the
    handler it set before."""
    stream = stream or sys.stderr
    handler = logging.StreamHandler(stream)
    handler.setFormatter(JournalFormatter() if to_journal(stream) else TimeFormatter())
    root = logging.getLogger()
    for old in [h for h in root.handlers if getattr(h, "dealer_assist", False)]:
        root.removeHandler(old)
    handler.dealer_assist = True  # type: ignore[attr-defined]
    root.addHandler(handler)
    root.setLevel(logging.WARNING)
    for name in OURS:
        logging.getLogger(name).setLevel(level)
    for name in QUIETED:
        logging.getLogger(name).setLevel(logging.ERROR)
    return handler
