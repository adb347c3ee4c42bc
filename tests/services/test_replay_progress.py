"""The start-up replay's progress: a bar on a terminal, lines on the log elsewhere."""

from __future__ import annotations

import io
import logging

import pytest

from dealer_assist.services.replay_progress import ReplayProgress


class Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_off_a_terminal_progress_comes_as_log_lines(caplog: pytest.LogCaptureFixture) -> None:
    with caplog.at_level(logging.INFO, logger="dealer_assist"), \
            ReplayProgress(2500, "replaying the log", every_s=0) as progress:
        for _ in range(2500):
            progress.step()
    lines = [r.getMessage() for r in caplog.records]
    assert lines[:2] == ["replaying the log: 1000 events of 2500 (40%)",
                         "replaying the log: 2000 events of 2500 (80%)"]
    assert lines[2].startswith("replaying the log: 2500 events in ") and len(lines) == 3


def test_on_a_terminal_progress_is_a_bar(monkeypatch: pytest.MonkeyPatch,
                                         caplog: pytest.LogCaptureFixture) -> None:
    terminal = Terminal()
    monkeypatch.setattr("sys.stderr", terminal)
    with caplog.at_level(logging.INFO, logger="dealer_assist"), \
            ReplayProgress(2500, "replaying the log", every_s=0) as progress:
        for _ in range(2500):
            progress.step()
    assert "replaying the log:" in terminal.getvalue() and "/2.50k" in terminal.getvalue()
    (line,) = [r.getMessage() for r in caplog.records]  # no progress lines, only the end
    assert line.startswith("replaying the log: 2500 events in")
