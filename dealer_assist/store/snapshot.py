"""Snapshot files of a live table, beside its log, and the log's tail past one.

A snapshot is a file `<log file name>.snapshot.<seq, 12 digits>` in the log's folder:

    dealer-assist table snapshot 2\\n
    {"key": {...}, "seq": N, "head": "<hash of event N>", "size": ...}\\n
    <the seal: HMAC-SHA256 of the table id, seq, head, header and state, 64 hex digits>\\n
    <the state's bytes (services/table_state.py)>

Nothing in the file is taken on its word: it lies in a folder that whoever can edit the log
can edit too. A snapshot is used only if, in this order, before a byte of its state is
unpickled: its key (state format, table id, a digest of the house settings and pay tables) is
the table's; its state is as long as its header says; its seal verifies under the table's
sealing key (store/snapshot_seal.py: a key derived from the table's signing key, which is
not in the folder), binding the table id, the seq, the head hash, the header and the state;
its seq is in the log and the log's event at that seq has the hash it records (a log
replaced or restored from an older copy has not); and its state reads back. Anything else is
refused with a warning naming the file and why, counted by reason (`refused`, which
`/metrics` shows), and the next older one is tried; with none left the caller replays the
whole log, so a forged snapshot costs a slower start, never a wrong table.

Files are written to `<name>.tmp`, flushed to disk, then renamed over (atomic on POSIX), so a
reader never sees half a file; the newest `keep` are kept, older ones, stray `.tmp` files and
any past the one just written (left by a log put back from an older copy) removed. The tail
past a snapshot is read with every link of its chain checked, starting from the snapshot's
head hash, as `replay` checks the whole log.
"""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Generic, Protocol, TypeVar

from dealer_assist.logformat import ChainHead
from dealer_assist.store.chain import ChainBroken, RawRecord, link_hash
from dealer_assist.store.durable import sync_folder
from dealer_assist.store.snapshot_seal import MAC_SIZE, SnapshotSeal

_log = logging.getLogger(__name__)
MAGIC = b"dealer-assist table snapshot 2\n"
T = TypeVar("T")

#: Why a snapshot was refused, as `/metrics` counts it: not a snapshot of this version (or
#: unreadable), taken for another table, format or settings, cut short, its seal does not
#: verify (edited, forged, another table's or another key's), not at an event of this log,
#: a state that does not read back.
REASONS = ("unreadable", "foreign", "truncated", "seal", "log", "state")


class LogReads(Protocol):
    """The log's reads a snapshot needs (SqliteEventLog, MemoryEventLog)."""

    def raw_records(self, after_seq: int = 0) -> Iterator[RawRecord]: ...

    def head(self) -> ChainHead: ...


class NoSnapshot(LookupError):
    """No snapshot can be used; the message says why (the caller replays the whole log)."""


class _Rejected(Exception):
    def __init__(self, reason: str, text: str) -> None:
        super().__init__(text)
        self.reason = reason


@dataclass(frozen=True)
class Loaded(Generic[T]):
    """A snapshot that matches the log: where it stands (seq, head hash) and its state."""

    path: Path
    seq: int
    head: str
    state: T


class TableSnapshots:
    """The snapshot files of the log at `log_path` (read through `log`), sealed and checked
    with `seal` (the table's)."""

    def __init__(self, log: LogReads, log_path: Path, seal: SnapshotSeal, keep: int = 2) -> None:
        self._log = log
        self._seal = seal
        self.folder = log_path.parent
        self._prefix = f"{log_path.name}.snapshot."
        self.keep = max(1, keep)
        #: Snapshots refused since this object was made, by reason (REASONS).
        self.refused: dict[str, int] = dict.fromkeys(REASONS, 0)

    def last_seq(self) -> int:
        """The seq of the log's last event."""
        return self._log.head().seq

    def files(self) -> list[Path]:
        """The snapshot files, newest (highest seq) first."""
        found = []
        for path in self.folder.glob(self._prefix + "*"):
            digits = path.name[len(self._prefix):]
            if digits.isdigit():
                found.append((int(digits), path))
        return [path for _, path in sorted(found, reverse=True)]

    # ---- reading --------------------------------------------------------------------------
    def newest(self, key: Mapping[str, Any], decode: Callable[[bytes, int], T]) -> Loaded[T]:
        """The newest snapshot that matches the log and `key`, its state read by `decode`
        (which raises on bytes it does not take); NoSnapshot says why there is none."""
        files = self.files()
        if not files:
            raise NoSnapshot(f"none in {self.folder}")
        reasons = []
        for path in files:
            try:
                return self._check(path, key, decode)
            except _Rejected as e:
                _log.warning("snapshot %s refused: %s", path.name, e)
                self.refused[e.reason] += 1
                reasons.append(f"{path.name}: {e}")
        raise NoSnapshot("; ".join(reasons))

    def _check(self, path: Path, key: Mapping[str, Any],
               decode: Callable[[bytes, int], T]) -> Loaded[T]:
        header, seq, head, mac, payload = self._read(path, key)
        if not self._seal.holds(mac, seq, head, header, payload):
            raise _Rejected("seal", "its seal does not verify: it was not written by this table "
                            "with its key (changed, forged, or another table's or key's)")
        last = self.last_seq()
        if seq > last:
            raise _Rejected("log", f"it stands at seq {seq}, past the log's last event ({last})")
        if self._hash_at(seq) != head:
            raise _Rejected("log", f"the log's event {seq} is not the one it was taken at "
                            "(the log was replaced or restored)")
        try:  # the first unpickling, once the seal and the log vouch for the bytes
            state = decode(payload, seq)
        except Exception as e:  # whatever the state's format refuses
            raise _Rejected("state", f"its state cannot be used: {e}") from None
        return Loaded(path, seq, head, state)

    def _read(self, path: Path, key: Mapping[str, Any]) -> tuple[bytes, int, str, bytes, bytes]:
        """A file's header line, seq, head hash, seal and state bytes, its key checked:
        what the seal covers, nothing of it unpickled."""
        try:
            data = path.read_bytes()
        except OSError as e:
            raise _Rejected("unreadable", f"cannot be read: {e.strerror}") from None
        end = data.find(b"\n", len(MAGIC))
        mac_end = end + 1 + 2 * MAC_SIZE
        if not data.startswith(MAGIC) or end < 0 or data[mac_end:mac_end + 1] != b"\n":
            raise _Rejected("unreadable", "not a table snapshot of this version")
        header = data[len(MAGIC):end]
        try:
            fields = json.loads(header)
            theirs, seq, head, size = fields["key"], fields["seq"], fields["head"], fields["size"]
            mac = bytes.fromhex(data[end + 1:mac_end].decode("ascii"))
        except (ValueError, TypeError, KeyError):
            raise _Rejected("unreadable", "its header is not readable") from None
        for name, ours in key.items():
            if not isinstance(theirs, dict) or theirs.get(name) != ours:
                got = theirs.get(name) if isinstance(theirs, dict) else None
                raise _Rejected("foreign", f"it was taken with {name} {got!r}; the table has "
                                f"{ours!r}")
        if not isinstance(seq, int) or isinstance(seq, bool) or seq < 1 \
                or not isinstance(head, str):
            raise _Rejected("unreadable", f"its seq {seq!r} is not an event's")
        payload = data[mac_end + 1:]
        if len(payload) != size:
            raise _Rejected("truncated", f"its contents are cut short or grown ({len(payload)} "
                            f"bytes, not {size!r})")
        return header, seq, head, mac, payload

    def _hash_at(self, seq: int) -> str | None:
        rows = self._log.raw_records(seq - 1)
        try:
            raw = next(rows, None)
        finally:
            getattr(rows, "close", lambda: None)()  # ends the read (a generator)
        return raw.hash if raw is not None and raw.seq == seq else None

    def tail(self, snapshot: Loaded[Any], from_seq: int) -> Iterator[tuple[int, dict[str, Any]]]:
        """(seq, event) from `from_seq` (at most the snapshot's seq + 1) to the log's end,
        each link checked; ChainBroken at the first that does not verify."""
        expected = from_seq
        prev = snapshot.head if from_seq == snapshot.seq + 1 else None
        for raw in self._log.raw_records(from_seq - 1):
            if raw.seq != expected:
                raise ChainBroken(raw.seq, f"expected seq {expected}")
            if prev is not None and raw.prev_hash != prev:
                raise ChainBroken(raw.seq, "prev_hash is not the hash of the event before")
            if link_hash(raw.prev_hash, raw.body) != raw.hash:
                raise ChainBroken(raw.seq, "the stored event does not match its hash")
            if raw.seq == snapshot.seq and raw.hash != snapshot.head:
                raise ChainBroken(raw.seq, "not the event the snapshot was taken at")
            yield raw.seq, json.loads(raw.body)
            prev, expected = raw.hash, raw.seq + 1

    # ---- writing --------------------------------------------------------------------------
    def save(self, key: Mapping[str, Any], seq: int, payload: bytes) -> Path | None:
        """Write the state at `seq` (None: seq 0 or not in the log, nothing written)."""
        head = self._hash_at(seq) if seq > 0 else None
        if head is None:
            return None
        header = json.dumps({"key": dict(key), "seq": seq, "head": head, "size": len(payload)},
                            sort_keys=True).encode()
        mac = self._seal.seal(seq, head, header, payload)
        path = self.folder / f"{self._prefix}{seq:012d}"
        tmp = path.with_name(path.name + ".tmp")
        with open(tmp, "wb") as out:
            out.write(MAGIC + header + b"\n" + mac.hex().encode() + b"\n")
            out.write(payload)
            out.flush()
            os.fsync(out.fileno())
        os.replace(tmp, path)
        sync_folder(self.folder)
        self._prune(path)
        return path

    def _prune(self, saved: Path) -> None:
        """Keep `saved` and the newest before it. A file past it was not written over this
        log (one put back from an older copy): it can never match, so it goes."""
        files = self.files()
        newer = files[:files.index(saved)]
        for path in newer + files[files.index(saved) + self.keep:]:
            path.unlink(missing_ok=True)
        for path in self.folder.glob(self._prefix + "*.tmp"):
            path.unlink(missing_ok=True)
