"""Capture files: every raw byte read from a shoe's port, with when it arrived.

A capture is two files: `PATH` holds the raw bytes exactly as read (so `dealer-assist shoe
decode PATH` replays them byte for byte), and `PATH.times` holds one JSON line per read:
`{"offset": 1024, "bytes": 17, "ts": "2026-11-29T10:15:02.417Z"}` (where those bytes start in
`PATH`), plus a line for every change of the link: `{"offset": 2048, "link": "down", "reason":
"...", "ts": "..."}`. Both files are appended to and flushed after every read.
"""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from hardware.clock import utc_stamp


class CaptureWriter:
    """Appends raw bytes to PATH and their arrival times to PATH.times."""

    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.times_path = self.path.with_name(self.path.name + ".times")
        self._raw = open(self.path, "ab", buffering=0)  # noqa: SIM115 - kept open while capturing
        self._times = open(self.times_path, "a", encoding="utf-8")  # noqa: SIM115
        self.offset = self._raw.tell()
        self._lock = threading.Lock()

    def write(self, data: bytes, ts: str | None = None) -> None:
        with self._lock:
            self._raw.write(data)
            self._line({"offset": self.offset, "bytes": len(data), "ts": ts or utc_stamp()})
            self.offset += len(data)

    def mark(self, **fields: Any) -> None:
        """Record a link change (or any note) at the current offset."""
        with self._lock:
            self._line({"offset": self.offset, **fields, "ts": fields.get("ts") or utc_stamp()})

    def _line(self, obj: dict[str, Any]) -> None:
        self._times.write(json.dumps(obj, separators=(",", ":")) + "\n")
        self._times.flush()

    def close(self) -> None:
        with self._lock:
            self._raw.close()
            self._times.close()

    def __enter__(self) -> CaptureWriter:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
