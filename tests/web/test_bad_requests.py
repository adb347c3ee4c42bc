"""Bad input at the table's web routes: a 4xx with a short message, never an HTTP 500 and never
a form field of megabytes echoed back; nothing is recorded.

Real parts: the app (`create_app`), its sessions and CSRF tokens, the live table, and for the
regulator's export a real SQLite log.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.auth import require
from dealer_assist.accounts.login import Accounts
from dealer_assist.config import load_paytables
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.records import TableRecords
from dealer_assist.store.log_range import SqliteLogSource
from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from dealer_assist.web.regulator import REGULATOR_ROLES, regulator_router
from tests.web.conftest import csrf_of, flagged_trace, login

HUGE = 1_000_000  # characters in a field: the page answers in a few kilobytes


def decide(client: TestClient, **fields: str) -> Any:
    csrf = csrf_of(client.get("/supervisor").text)
    form = {"csrf": csrf, "shoe": "S1", "game": "2", "action": "accept", "reason": "video"}
    return client.post("/supervisor/decide", data={**form, **fields})


@pytest.mark.parametrize("game", ["²", "٣", "9" * 5000, "-1", ""])
def test_a_game_that_is_not_a_game_number_is_a_400(client: TestClient, log: Any,
                                                   game: str) -> None:
    login(client, "sup")
    before = log.head().seq
    response = decide(client, game=game)
    assert response.status_code == 400 and "is not a game number" in response.text
    assert len(response.content) < 5000
    assert log.head().seq == before


@pytest.mark.parametrize("field", ["action", "shoe"])
def test_a_huge_field_is_refused_with_a_short_excerpt(client: TestClient, log: Any,
                                                      field: str) -> None:
    login(client, "sup")
    before = log.head().seq
    response = decide(client, **{field: "x" * HUGE})
    assert response.status_code == 400 and "xxx..." in response.text
    assert len(response.content) < 10_000
    assert log.head().seq == before


def test_a_huge_side_to_reveal_is_refused_with_a_short_excerpt(client: TestClient,
                                                                 log: Any) -> None:
    login(client, "dea")
    before = log.head().seq
    response = client.post("/dealer/reveal", data={"csrf": csrf_of(client.get("/dealer").text),
                                                   "side": "s" * HUGE})
    assert response.status_code == 400 and "all, player or banker" in response.text
    assert len(response.content) < 10_000
    assert log.head().seq == before


@pytest.fixture
def regulator(tmp_path: Path, table: LiveTable, users: UserStore) -> Iterator[TestClient]:
    path = tmp_path / "T1.events.db"
    log = SqliteEventLog(path)
    log.append_many(flagged_trace().events)
    log.close()
    records = TableRecords({"T1": SqliteLogSource(path)}, load_paytables())
    app = create_app(table, Accounts(TableUsers(users)), routers=[regulator_router(
        records, require(*REGULATOR_ROLES, page=True), scratch=tmp_path)])
    with TestClient(app, follow_redirects=False) as client:
        login(client, "reg")
        yield client


@pytest.mark.parametrize("start, end", [
    ("0001-01-01T00:00:00+14:00", "2026-11-30"),
    ("2026-11-29", "9999-12-31T23:59:59-14:00"),
])
def test_an_export_past_the_calendars_ends_is_a_400(regulator: TestClient, start: str,
                                                     end: str) -> None:
    response = regulator.get("/regulator/T1/export.zip", params={"from": start, "to": end})
    assert response.status_code == 400 and "passes the calendar" in response.text


def test_what_the_stores_cannot_take_is_a_400_naming_the_field(client: TestClient,
                                                                log: Any) -> None:
    """A NUL, a control character, bytes that are not UTF-8: refused before any route
    (accounts/inputs.py); tests/web/test_every_input.py sends them to every route."""
    login(client, "sup")
    before = log.head().seq
    for query, field in [("shoe=S%001&game=2", "query shoe"), ("%00=1", "query field"),
                         ("shoe=S1&game=2&lang=%FF", "query lang")]:
        response = client.get(f"/supervisor/review?{query}")
        assert response.status_code == 400, query
        assert f"{field} is missing or not valid" in response.text
    response = decide(client, reason="seen on video\x1b[2J")
    assert response.status_code == 400 and "form reason is missing or not valid" in response.text
    api = client.get("/api/history?shoe=%00")
    assert api.status_code == 400 and api.json() == {"detail": "query shoe is missing or not valid"}
    assert log.head().seq == before


def test_a_reason_over_lines_and_tabs_is_taken(client: TestClient, log: Any) -> None:
    login(client, "sup")
    before = log.head().seq
    response = decide(client, reason="seen on video,\r\n\tcamera 2")
    assert response.status_code == 303
    assert log.head().seq == before + 1


def test_a_body_too_large_or_a_multipart_form_is_refused(client: TestClient, log: Any) -> None:
    login(client, "sup")
    before = log.head().seq
    csrf = csrf_of(client.get("/supervisor").text)
    response = client.post("/supervisor/decide", content=b"reason=" + b"x" * (5 * 2**20),
                           headers={"content-type": "application/x-www-form-urlencoded"})
    assert response.status_code == 413 and "body is missing or not valid" in response.text
    response = client.post("/supervisor/decide", files={"photo": ("a.jpg", b"\xff\xd8")},
                           data={"csrf": csrf, "shoe": "S1", "game": "2", "action": "accept",
                                 "reason": "video"})
    assert response.status_code == 415 and "body is missing or not valid" in response.text
    assert log.head().seq == before


def test_a_security_token_that_is_not_ascii_is_a_403_not_a_500(client: TestClient,
                                                                log: Any) -> None:
    login(client, "sup")
    before = log.head().seq
    response = client.post("/supervisor/decide", data={
        "csrf": "\u00e9\u202e", "shoe": "S1", "game": "2", "action": "accept", "reason": "r"})
    assert response.status_code == 403 and "security token" in response.text
    assert log.head().seq == before
