"""Files of an export whose SHA-256 and size are taken as they are written.

`HashedFile` takes text (the CSV writers write a row at a time), encodes it as UTF-8 and passes
it on in blocks of about `BLOCK` characters, so neither the hash nor the file sees a call per
row. `BackgroundFile` takes bytes and does the hashing and the writing (in an export, deflating
into the zip) on a thread of its own: hashlib and zlib let go of the interpreter while they
work, so on a machine with two cores that work runs beside the re-audit instead of after it.
Its queue holds at most `DEPTH` blocks, so memory stays flat however fast the producer is.
An error on the thread (a full disk) is raised in the producer at its next write or close.
"""

from __future__ import annotations

import hashlib
import queue
import threading
from typing import IO, Any

BLOCK = 1 << 18
DEPTH = 8


class HashedFile:
    """A text file written as UTF-8 through `write`; the SHA-256 and size of what it holds."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.sha = hashlib.sha256()
        self.size = 0
        self._pending: list[str] = []
        self._chars = 0

    def write(self, text: str) -> int:
        self._pending.append(text)
        self._chars += len(text)
        if self._chars >= BLOCK:
            self.flush()
        return len(text)

    def flush(self) -> None:
        if self._pending:
            data = "".join(self._pending).encode("utf-8")
            self._pending.clear()
            self._chars = 0
            self.sha.update(data)
            self.size += len(data)
            self.handle.write(data)

    def close(self) -> None:
        if not self.handle.closed:
            self.flush()
            self.handle.close()

    def entry(self) -> dict[str, Any]:
        return {"sha256": self.sha.hexdigest(), "bytes": self.size}


class BackgroundFile:
    """Bytes hashed and written to `handle` on a thread of its own; `close` waits for it."""

    def __init__(self, handle: IO[bytes]) -> None:
        self.handle = handle
        self.sha = hashlib.sha256()
        self.size = 0
        self._queue: queue.Queue[bytes | None] = queue.Queue(DEPTH)
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._drain, name="export-writer", daemon=True)
        self._thread.start()

    def write(self, data: bytes) -> None:
        if self._error is not None:
            self._raise()
        self._queue.put(data)

    def close(self) -> None:
        """Wait for every block to be written, close the handle; the thread's error, if any."""
        if self._thread.is_alive():
            self._queue.put(None)
            self._thread.join()
        if not self.handle.closed:
            self.handle.close()
        if self._error is not None:
            self._raise()

    def entry(self) -> dict[str, Any]:
        return {"sha256": self.sha.hexdigest(), "bytes": self.size}

    def _raise(self) -> None:
        error, self._error = self._error, None
        if error is not None:
            raise error

    def _drain(self) -> None:
        failed = False
        while (data := self._queue.get()) is not None:
            if failed:
                continue  # keep taking blocks so the producer never waits on a full queue
            try:
                self.sha.update(data)
                self.size += len(data)
                self.handle.write(data)
            except BaseException as exc:  # noqa: BLE001 - handed to the producer
                self._error, failed = exc, True
