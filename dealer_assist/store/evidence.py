"""The camera's evidence frames, kept beside the table's log: `<log>.evidence/<sha256>.jpg`.

Every `card_seen` / `card_lost` the camera hands the table names the frames that show it, by
the SHA-256 of their JPEG bytes (export/evidence.py has the field). `EvidenceFolder.keep`
writes each JPEG before the event that names it is appended (a temporary file, then a rename:
a frame is there whole or not at all), so a flag raised by the event has its frames in the
hash chain. `frame(sha)` gives the bytes back only when they still hash to their name.

Retention (`[camera] evidence_days`, `evidence_max_mb`): a frame older than the days is
removed, and while the folder is larger than the size, the oldest frames go first: frames of
events that raised no flag before those that did (`mark_flagged`, in `flagged.txt`). Every
frame of a flag removed is noted in `removed.txt` (its hash and when; the frames of no flag,
most of them, are not: no review or export asks for them), so an export can say that a
frame named by a flag's event was removed by retention, and `verify` reports it, not fails
it: the event's hash never depended on the file being there. Retention runs at start, then
hourly and whenever a frame takes the folder past its size.

`EvidenceReader` is what the review page asks: the frames of a game's flags (the shoe's
events replayed through the table machine, `FlagWitness` noting which event raised which
flag) and a frame's bytes by hash. `EvidencedLogSource` is the table's log as an export reads
it (`SqliteLogSource`) with the folder beside it, so an export carries the frames of its flags.
"""

from __future__ import annotations

import hashlib
import os
import tempfile
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass
from functools import partial
from pathlib import Path

from dealer_assist.config import CameraConfig, TableConfig
from dealer_assist.domain.events import TraceError, parse_event
from dealer_assist.domain.table import TableMachine
from dealer_assist.export.evidence import FlagFrame, FlagWitness, is_sha256
from dealer_assist.export.links import decode_event
from dealer_assist.store.log_range import SqliteLogSource

SUFFIX = ".jpg"
FLAGGED, REMOVED = "flagged.txt", "removed.txt"
#: The defaults of `[camera] evidence_days` and `evidence_max_mb`.
DAYS, MAX_MB = CameraConfig.evidence_days, CameraConfig.evidence_max_mb
_PRUNE_EVERY_S = 3600.0


def evidence_folder(database: Path) -> Path:
    """Where a table's log keeps its frames: `var/T1.events.db` -> `var/T1.events.evidence/`."""
    return Path(database).with_suffix(".evidence")


def table_evidence(config: TableConfig) -> EvidenceFolder:
    """The folder of a table's frames with its configured retention (not yet opened)."""
    return EvidenceFolder(evidence_folder(config.database), days=config.camera.evidence_days,
                          max_mb=config.camera.evidence_max_mb)


@dataclass(frozen=True)
class Pruned:
    removed: int
    bytes_left: int


class EvidenceFolder:
    """The folder of JPEG frames beside a log, with its retention (see the module's doc)."""

    def __init__(self, path: Path, *, days: float = DAYS, max_mb: float = MAX_MB,
                 clock: Callable[[], float] = time.time) -> None:
        self.path = Path(path)
        self.days, self.max_bytes = days, int(max_mb * 1024 * 1024)
        self.clock = clock
        self._lock = threading.Lock()
        self._bytes = 0
        self._pruned_at = 0.0

    def open(self) -> EvidenceFolder:
        """Make the folder (0700) and apply the retention once."""
        self.path.mkdir(mode=0o700, parents=True, exist_ok=True)
        self.prune()
        return self

    def file(self, sha256: str) -> Path | None:
        """The frame's file name; None for anything that is not a SHA-256 (never a path)."""
        return self.path / f"{sha256}{SUFFIX}" if is_sha256(sha256) else None

    def keep(self, jpeg: bytes) -> str:
        """Write `jpeg` (whole or not at all) and return its SHA-256, its name."""
        sha = hashlib.sha256(jpeg).hexdigest()
        target = self.path / f"{sha}{SUFFIX}"
        with self._lock:
            if not target.exists():
                fd, partial = tempfile.mkstemp(prefix=".frame-", dir=self.path)
                try:
                    with os.fdopen(fd, "wb") as out:
                        out.write(jpeg)
                        out.flush()
                        os.fsync(out.fileno())
                    os.replace(partial, target)
                except BaseException:
                    Path(partial).unlink(missing_ok=True)
                    raise
                self._bytes += len(jpeg)
            due = self.clock() - self._pruned_at >= _PRUNE_EVERY_S
        if due or self._bytes > self.max_bytes:
            self.prune()
        return sha

    def mark_flagged(self, shas: list[str]) -> None:
        """These frames showed a flag being raised: retention removes them last."""
        kept = [s for s in shas if is_sha256(s)]
        if kept:
            with self._lock, open(self.path / FLAGGED, "a", encoding="ascii") as out:
                out.write("".join(f"{s}\n" for s in kept))

    def frame(self, sha256: str) -> bytes | None:
        """The frame's JPEG; None when there is none by that name or its bytes do not hash
        to it (`status` tells which)."""
        path = self.file(sha256)
        try:
            data = path.read_bytes() if path else None
        except OSError:
            return None
        return data if data is not None and hashlib.sha256(data).hexdigest() == sha256 else None

    def status(self, sha256: str) -> str:
        """"kept", "damaged" (the bytes do not hash to the name), "removed by retention" or
        "missing"."""
        path = self.file(sha256)
        if path is not None and path.is_file():
            return "kept" if self.frame(sha256) is not None else "damaged"
        return "removed by retention" if sha256 in self._listed(REMOVED) else "missing"

    def _listed(self, name: str) -> set[str]:
        try:
            text = (self.path / name).read_text(encoding="ascii")
        except OSError:
            return set()
        return {line.split(" ", 1)[0] for line in text.splitlines() if line}

    def prune(self) -> Pruned:
        """Apply the retention now (see the module's doc)."""
        with self._lock:
            now = self.clock()
            self._pruned_at = now
            flagged = self._listed(FLAGGED)
            frames = self._frames_by_removal(flagged)
            total = sum(size for _, size, _ in frames)
            cutoff = now - self.days * 86400
            gone = []
            for mtime, size, path in frames:
                if mtime < cutoff or total > self.max_bytes:
                    path.unlink(missing_ok=True)
                    total -= size
                    gone.append(path.name[:-len(SUFFIX)])
            self._note_removed(flagged, [s for s in gone if s in flagged], now)
            self._bytes = total
            return Pruned(len(gone), total)

    def _note_removed(self, flagged: set[str], gone: list[str], now: float) -> None:
        """The flags' frames removed go to `removed.txt`, and out of `flagged.txt`."""
        if not gone:
            return
        with open(self.path / REMOVED, "a", encoding="ascii") as out:
            out.write("".join(f"{s} {int(now)}\n" for s in gone))
        left = sorted(flagged - set(gone))
        partial_file = self.path / f".{FLAGGED}.partial"
        partial_file.write_text("".join(f"{s}\n" for s in left), encoding="ascii")
        os.replace(partial_file, self.path / FLAGGED)

    def _frames_by_removal(self, flagged: set[str]) -> list[tuple[float, int, Path]]:
        """(mtime, size, path) of every frame, in the order retention removes them: frames
        of no flag first, then the flags' frames, oldest first in each."""
        if not self.path.is_dir():
            return []
        frames = []
        for entry in os.scandir(self.path):
            if entry.name.endswith(SUFFIX) and entry.is_file():
                st = entry.stat()
                frames.append((entry.name[:-len(SUFFIX)] in flagged, st.st_mtime, st.st_size,
                               Path(entry.path)))
        frames.sort(key=lambda f: (f[0], f[1]))
        return [(mtime, size, path) for _, mtime, size, path in frames]


class EvidenceReader:
    """The review page's view of the frames: those of a game's flags, and a frame's bytes."""

    def __init__(self, database: Path, folder: EvidenceFolder) -> None:
        self.database, self.folder = Path(database), folder

    def jpeg(self, sha256: str) -> bytes | None:
        return self.folder.frame(sha256)

    def game_frames(self, shoe_id: str, started: str, game: int) -> list[dict[str, object]]:
        """The frames of the flags of game `game` of the shoe `shoe_id` that started at
        `started` (its `new_shoe`'s ts): each with what it shows and whether it is kept."""
        try:
            source = SqliteLogSource(self.database)
        except (OSError, ValueError):
            return []
        span = source.span(started, "9999-12-31T23:59:59.999Z")
        start = source.next_shoe_start_after(span[0] - 1) if span else None
        if start is None:
            return []
        after = source.next_shoe_start_after(start)
        last = after - 1 if after is not None else source.head()[0]
        witness = FlagWitness(TableMachine(record=False))
        for record in source.records(start, last):
            obj = decode_event(record.body)
            try:
                event = parse_event(obj)
            except (TraceError, ValueError):
                continue
            witness.apply(record.seq, obj, partial(witness.machine.apply, event))
        return [_shown(f, self.folder.status(f.sha256))
                for f in witness.of_game(shoe_id, game)]


def _shown(frame: FlagFrame, status: str) -> dict[str, object]:
    return {"sha256": frame.sha256, "role": frame.role, "seq": frame.seq, "ts": frame.ts,
            "codes": list(frame.codes), "status": status}


class EvidencedLogSource(SqliteLogSource):
    """A table's log read for an export, with the frames kept beside it (`evidence`)."""

    def __init__(self, path: str | Path, folder: EvidenceFolder | None = None) -> None:
        super().__init__(path)
        self.evidence = folder or EvidenceFolder(evidence_folder(Path(path)))
