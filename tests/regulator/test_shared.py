"""What both regulator pages share: a day read from a path, and the export download (its
refusals in order, and nothing left behind either way)."""

from __future__ import annotations

from datetime import date, timedelta
from pathlib import Path

import pytest
from fastapi.responses import FileResponse, PlainTextResponse, Response

from dealer_assist.regulator.days import DayOutOfRange, calendar_day
from dealer_assist.regulator.download import Refusal, zip_download


def test_a_day_is_read_as_written_and_kept_inside_the_calendars_ends() -> None:
    assert calendar_day("2026-11-29", timedelta(days=31)) == date(2026, 11, 29)
    assert calendar_day("0001-01-02", timedelta(days=1)) == date(1, 1, 2)
    with pytest.raises(DayOutOfRange):
        calendar_day("0001-01-01", timedelta(days=1))
    with pytest.raises(DayOutOfRange):
        calendar_day("9999-12-01", timedelta(days=31))
    with pytest.raises(ValueError) as caught:
        calendar_day("29/11/2026", timedelta(days=1))
    assert not isinstance(caught.value, DayOutOfRange)


class Narrow(ValueError):
    pass


REFUSALS = (Refusal(Narrow, 404, "narrow: {}"), Refusal(ValueError, 400, "export: {}"))


def refuse(status: int, text: str) -> Response:
    return PlainTextResponse(text, status_code=status)


def test_the_zip_is_sent_and_its_folder_removed_once_sent(tmp_path: Path) -> None:
    def write(folder: Path) -> Path:
        (folder / "T1.zip").write_bytes(b"PK")
        return folder / "T1.zip"

    sent = zip_download(write, REFUSALS, refuse, prefix="test-", scratch=tmp_path)
    assert isinstance(sent, FileResponse) and sent.filename == "T1.zip"
    assert sent.media_type == "application/zip"
    [folder] = list(tmp_path.iterdir())
    assert folder.name.startswith("test-")
    assert sent.background is not None
    sent.background.func(*sent.background.args)  # what runs once the file is sent
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("error", "status", "text"), [
    (Narrow("no events"), 404, "narrow: no events"),
    (ValueError("empty range"), 400, "export: empty range"),
])
def test_a_refusal_is_the_first_that_fits_and_leaves_nothing(
        tmp_path: Path, error: Exception, status: int, text: str) -> None:
    def write(folder: Path) -> Path:
        (folder / "half.zip").write_bytes(b"P")
        raise error

    page = zip_download(write, REFUSALS, refuse, prefix="test-", scratch=tmp_path)
    assert (page.status_code, bytes(page.body).decode()) == (status, text)
    assert list(tmp_path.iterdir()) == []


def test_anything_else_is_raised_and_leaves_nothing(tmp_path: Path) -> None:
    def write(folder: Path) -> Path:
        raise OSError("disk full")

    with pytest.raises(OSError, match="disk full"):
        zip_download(write, REFUSALS, refuse, prefix="test-", scratch=tmp_path)
    assert list(tmp_path.iterdir()) == []
