"""The evidence folder beside a log: frames written whole and named by their SHA-256, read
back only when they still match, and its retention by days and by size (frames of no flag
first), each frame removed noted."""

from __future__ import annotations

import hashlib
import os
import time
from pathlib import Path

import pytest

from dealer_assist.store.evidence import FLAGGED, REMOVED, EvidenceFolder, evidence_folder

DAY = 86400.0


class Clock:
    """Now, as the files' times are (a frame written now has now's mtime)."""

    def __init__(self) -> None:
        self.now = time.time()

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def folder_at(tmp_path: Path, clock: Clock, **retention: float) -> EvidenceFolder:
    return EvidenceFolder(evidence_folder(tmp_path / "T1.events.db"), clock=clock,
                          **retention).open()


def frame(n: int, size: int = 1000) -> bytes:
    return bytes([n % 256]) * size


def aged(folder: EvidenceFolder, sha: str, at: float) -> None:
    os.utime(folder.path / f"{sha}.jpg", (at, at))


def test_a_frame_is_kept_under_its_hash_and_read_back(tmp_path: Path, clock: Clock) -> None:
    folder = folder_at(tmp_path, clock)
    assert folder.path == tmp_path / "T1.events.evidence"
    sha = folder.keep(frame(1))
    assert sha == hashlib.sha256(frame(1)).hexdigest() and folder.frame(sha) == frame(1)
    assert folder.keep(frame(1)) == sha  # the same frame twice: one file
    assert [p.name for p in folder.path.iterdir()] == [f"{sha}.jpg"]
    assert folder.status(sha) == "kept"
    (folder.path / f"{sha}.jpg").write_bytes(b"changed")
    assert folder.frame(sha) is None and folder.status(sha) == "damaged"
    assert folder.status("0" * 64) == "missing"


@pytest.mark.parametrize("name", ["", "../T1.events.db", "A" * 64, "0" * 63, "0" * 65,
                                  "0" * 64 + "/x", None, 7])
def test_a_name_that_is_no_hash_is_never_a_path(tmp_path: Path, clock: Clock,
                                                name: object) -> None:
    folder = folder_at(tmp_path, clock)
    assert folder.file(name) is None and folder.frame(name) is None  # type: ignore[arg-type]


def test_retention_by_days(tmp_path: Path, clock: Clock) -> None:
    folder = folder_at(tmp_path, clock, days=30)
    old, flagged_old, new = (folder.keep(frame(n)) for n in (1, 2, 3))
    folder.mark_flagged([flagged_old])
    for sha in (old, flagged_old):
        aged(folder, sha, clock.now - 31 * DAY)
    aged(folder, new, clock.now - 29 * DAY)
    pruned = folder.prune()
    assert pruned.removed == 2 and pruned.bytes_left == 1000
    assert folder.status(new) == "kept"
    # a flag's frame removed is noted (an export or review may ask for it); the others not
    assert folder.status(flagged_old) == "removed by retention"
    assert folder.status(old) == "missing"
    assert (folder.path / REMOVED).read_text().split()[::2] == [flagged_old]
    assert (folder.path / FLAGGED).read_text() == ""


def test_retention_by_size_removes_frames_of_no_flag_first(tmp_path: Path,
                                                           clock: Clock) -> None:
    folder = folder_at(tmp_path, clock, max_mb=3500 / 1024 / 1024)
    oldest_flagged, old, new = (folder.keep(frame(n)) for n in range(3))
    folder.mark_flagged([oldest_flagged])
    for age, sha in ((20, oldest_flagged), (10, old), (5, new)):
        aged(folder, sha, clock.now - age * DAY)
    more = folder.keep(frame(9))  # 4000 bytes: over the 3500
    assert folder.status(old) == "missing"  # gone; a frame of no flag is not noted
    assert [folder.status(s) for s in (oldest_flagged, new, more)] == ["kept"] * 3
    assert oldest_flagged in (folder.path / FLAGGED).read_text()


def test_a_frame_is_written_whole_or_not_at_all(tmp_path: Path, clock: Clock,
                                               monkeypatch: pytest.MonkeyPatch) -> None:
    folder = folder_at(tmp_path, clock)

    def full(*args: object) -> None:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "replace", full)
    with pytest.raises(OSError):
        folder.keep(frame(5))
    assert list(folder.path.iterdir()) == []
