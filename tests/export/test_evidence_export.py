"""The regulator export carries the frames of the flags' events under `evidence/`, and
`verify` checks each against the SHA-256 its event gives: a changed frame fails, a frame
removed by retention before the export is reported, not failed."""

from __future__ import annotations

import hashlib
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.devices.camera_script import FlaggedTable, copied, flagged_master
from tests.export.conftest import Export, Verify

START, END = "2026-11-29", "2100-01-01"


master = pytest.fixture(scope="module", name="master")(flagged_master)


@pytest.fixture
def flagged(master: FlaggedTable, tmp_path: Path) -> Iterator[FlaggedTable]:
    table = copied(master, tmp_path / "table")
    table.log.close()
    yield table


def flag_frames(flagged: FlaggedTable) -> list[str]:
    events = flagged.camera_events()[2:]
    return list(dict.fromkeys(f["sha256"] for e in events for f in e["frames"]))


def test_the_export_carries_the_frames_of_the_flags_and_verify_checks_them(
        flagged: FlaggedTable, export: Export, verify: Verify, tmp_path: Path) -> None:
    out = tmp_path / "T1.zip"
    status, _, err = export(flagged.database, out, START, END)
    assert status == 0, err
    with zipfile.ZipFile(out) as zf:
        names = zf.namelist()
        carried = {n for n in names if n.startswith("evidence/")}
        assert carried == {f"evidence/{sha}.jpg" for sha in flag_frames(flagged)}
        for name in carried:
            assert hashlib.sha256(zf.read(name)).hexdigest() == name[9:-4]
        assert names[-2:] == ["manifest.json", "manifest.sig"]
    status, said = verify(out)
    assert status == 0, said
    assert f"{len(carried)} evidence frame(s) of the flags match the hashes in their events" \
        in said


def test_a_changed_frame_fails_verify(flagged: FlaggedTable, export: Export, verify: Verify,
                                      tmp_path: Path) -> None:
    out, changed = tmp_path / "T1.zip", tmp_path / "changed.zip"
    assert export(flagged.database, out, START, END)[0] == 0
    target = f"evidence/{flag_frames(flagged)[0]}.jpg"
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(changed, "w") as dst:
        for info in src.infolist():
            data = src.read(info)
            dst.writestr(info, data[:-10] + b"\0" * 10 if info.filename == target else data)
    status, said = verify(changed)
    assert status == 1
    assert f"{target}: SHA-256" in said and "the frame was changed" in said


def test_a_frame_removed_from_the_zip_fails_verify(flagged: FlaggedTable, export: Export,
                                                   verify: Verify, tmp_path: Path) -> None:
    out, cut = tmp_path / "T1.zip", tmp_path / "cut.zip"
    assert export(flagged.database, out, START, END)[0] == 0
    target = f"evidence/{flag_frames(flagged)[0]}.jpg"
    with zipfile.ZipFile(out) as src, zipfile.ZipFile(cut, "w") as dst:
        for info in src.infolist():
            if info.filename != target:
                dst.writestr(info, src.read(info))
    status, said = verify(cut)
    assert status == 1 and f"{target}: missing from the zip" in said


def test_a_frame_removed_by_retention_is_reported_not_failed(
        flagged: FlaggedTable, export: Export, verify: Verify, tmp_path: Path) -> None:
    gone = flag_frames(flagged)[0]
    flagged.folder.days = 0  # every frame is past its days
    assert flagged.folder.prune().bytes_left == 0
    out = tmp_path / "T1.zip"
    status, _, err = export(flagged.database, out, START, END)
    assert status == 0, err
    with zipfile.ZipFile(out) as zf:
        assert not [n for n in zf.namelist() if n.startswith("evidence/")]
    status, said = verify(out)
    assert status == 0, said
    assert f"{gone}" in said and "removed by retention" in said


def test_with_no_frames_the_export_is_as_before(day_log_master, export: Export,
                                                tmp_path: Path) -> None:
    out = tmp_path / "plain.zip"
    assert export(day_log_master.path, out)[0] == 0
    with zipfile.ZipFile(out) as zf:
        assert zf.namelist() == ["events.jsonl", "games.csv", "decisions.csv", "flags.csv",
                                 "manifest.json", "manifest.sig"]
        assert b'"evidence"' not in zf.read("manifest.json")
