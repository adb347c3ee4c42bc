"""The service's log lines: timestamps and levels for a person, priorities for journald."""

from __future__ import annotations

import io
import logging
import os
import re
import tempfile

import pytest

from dealer_assist import logs


@pytest.fixture(autouse=True)
def _restore_logging():
    root = logging.getLogger()
    handlers, level = list(root.handlers), root.level
    yield
    root.handlers[:] = handlers
    root.setLevel(level)
    for name in (*logs.OURS, *logs.QUIETED):
        logging.getLogger(name).setLevel(logging.NOTSET)


@pytest.fixture
def out(monkeypatch) -> io.StringIO:
    """Where the log lines go once set up: a stream a person reads (not the journal)."""
    monkeypatch.delenv("JOURNAL_STREAM", raising=False)
    stream = io.StringIO()
    logs.setup(stream=stream)
    return stream


def test_a_person_reads_the_time_the_level_and_the_logger(out) -> None:
    logging.getLogger("dealer_assist.login").info("login: name='sup'")
    logging.getLogger("hardware.camera.source").warning("camera lost")
    logging.getLogger("uvicorn.error").info("not shown: a library's chatter")
    lines = out.getvalue().splitlines()
    assert len(lines) == 2
    assert re.fullmatch(r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}\+00:00 INFO "
                        r"dealer_assist\.login: login: name='sup'", lines[0])
    assert lines[1].endswith(" WARNING hardware.camera.source: camera lost")


def test_journald_gets_priorities_and_no_timestamps(monkeypatch) -> None:
    with tempfile.TemporaryFile("w+") as journal:
        stat = os.fstat(journal.fileno())
        monkeypatch.setenv("JOURNAL_STREAM", f"{stat.st_dev}:{stat.st_ino}")
        logs.setup(stream=journal)
        logging.getLogger("dealer_assist.login").warning("login failed: two\nlines")
        logging.getLogger("dealer_assist").error("the log could not take it")
        journal.seek(0)
        assert journal.read().splitlines() == [
            "<4>dealer_assist.login: login failed: two", "<4>lines",
            "<3>dealer_assist: the log could not take it"]


def test_another_stream_than_the_journals_gets_timestamps(monkeypatch) -> None:
    monkeypatch.setenv("JOURNAL_STREAM", "1:2")
    out = io.StringIO()  # no file descriptor at all
    logs.setup(stream=out)
    logs.setup(stream=out)  # set up twice: still one line per record
    logging.getLogger("dealer_assist").warning("once")
    assert len(out.getvalue().splitlines()) == 1 and " WARNING dealer_assist: once" in out.getvalue()


def test_psycopg_warnings_that_repeat_an_outage_are_not_shown_its_errors_are(out) -> None:
    logging.getLogger("psycopg.pool").warning("error connecting in 'floor': connection is bad")
    logging.getLogger("psycopg").warning("error ignored terminating <psycopg.Pipeline [BAD]>")
    logging.getLogger("dealer_assist.shipping.shipper").warning("central store unreachable")
    logging.getLogger("psycopg").error("a real error")
    lines = out.getvalue().splitlines()
    assert [line.split(" ", 1)[1] for line in lines] == [
        "WARNING dealer_assist.shipping.shipper: central store unreachable",
        "ERROR psycopg: a real error"]
