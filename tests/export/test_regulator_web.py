"""The regulator's pages, mounted in the table's app (`create_app`, its exception handlers).

Real parts: the table's SQLite log (read-only), the export and its signature, and the web's
own sessions and `require` guard. Only the login is skipped: the test makes the sessions
(the outermost boundary, where a password would be checked).
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi import FastAPI
from fastapi.testclient import TestClient

from dealer_assist.accounts.auth import SESSION_COOKIE, require
from dealer_assist.accounts.login import Accounts
from dealer_assist.accounts.users import Account
from dealer_assist.config import load_paytables
from dealer_assist.domain.house import HouseRules
from dealer_assist.export.verifier import verify_export
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.records import TableRecords
from dealer_assist.signing_keys import load_private_key, load_public_key
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.log_range import SqliteLogSource
from dealer_assist.store.sqlite_log import SqliteEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from dealer_assist.web.regulator import REGULATOR_ROLES, regulator_router
from tests.export.conftest import decision

DAY_PAGE = "/regulator/T1/days/2026-11-29"
EXPORT = "/regulator/T1/export.zip?from=2026-11-29&to=2026-11-30"
ROUTES = ["/regulator?month=2026-11", DAY_PAGE, EXPORT]


def make_app(records: TableRecords, scratch: Path) -> FastAPI:
    """The table's app (an idle table, an empty users file) with the regulator's pages."""
    table = LiveTable(MemoryEventLog(), table_id="T1", house=HouseRules(),
                      paytables=load_paytables())
    accounts = Accounts(TableUsers(UserStore(scratch.parent / "users.db")))
    return create_app(table, accounts, routers=[regulator_router(
        records, require(*REGULATOR_ROLES, page=True), scratch=scratch)])


@pytest.fixture
def scratch(tmp_path: Path) -> Path:
    folder = tmp_path / "scratch"
    folder.mkdir()
    return folder


@pytest.fixture
def records(day_log, keys) -> TableRecords:
    return TableRecords({"T1": SqliteLogSource(day_log.path)}, load_paytables(),
                        signing_key=lambda: load_private_key(keys.private))


@pytest.fixture
def app(records, scratch) -> FastAPI:
    return make_app(records, scratch)


@pytest.fixture
def client(app) -> Iterator[TestClient]:
    with TestClient(app, follow_redirects=False) as c:
        yield c


def as_role(client: TestClient, app: FastAPI, role: str) -> TestClient:
    session = app.state.sessions.create(Account(f"someone-{role}", role))
    client.cookies.set(SESSION_COOKIE, session.token)
    return client


def test_without_a_session_every_page_sends_to_the_login(client):
    for path in ROUTES:
        response = client.get(path)
        assert response.status_code == 303
        assert response.headers["location"].startswith("/login?next=/regulator")


@pytest.mark.parametrize("path", ROUTES)
def test_a_dealer_may_not_see_or_export_anything(client, app, scratch, path):
    response = as_role(client, app, "dealer").get(path)
    assert response.status_code == 403
    assert "for regulators or supervisors only" in response.text
    assert list(scratch.iterdir()) == []  # no export was even written


def test_every_route_of_the_router_is_guarded(records, scratch):
    guarded = regulator_router(records, require(*REGULATOR_ROLES))
    for route in guarded.routes:
        assert any(d.call.__qualname__.startswith("require")
                   for d in route.dependant.dependencies), route.path  # type: ignore[attr-defined]


@pytest.mark.parametrize("role", REGULATOR_ROLES)
def test_regulators_and_supervisors_see_the_days_of_a_month(client, app, role):
    response = as_role(client, app, role).get("/regulator", params={"month": "2026-11"})
    assert response.status_code == 200
    assert f'href="{DAY_PAGE}"' in response.text
    assert "<td>4</td>" in response.text  # four shoes started that day


def test_the_day_page_lists_shoes_games_flags_and_decisions(client, app):
    page = as_role(client, app, "regulator").get(DAY_PAGE)
    assert page.status_code == 200
    text = page.text
    for shoe in ("S1", "S2", "S3", "S4"):
        assert f"<b>Shoe {shoe}</b>" in text
    assert "UNNEEDED_DRAW" in text and "DEAL_AFTER_LAST_GAME" in text
    assert "late: wrong shoe, see report 7" in text  # the late ruling, on S1 game 2
    assert "void by S-007" in text
    assert "false: decision for game 999" in text
    assert 'href="/regulator/T1/export.zip?from=2026-11-29&amp;to=2026-11-30"' in text


def test_a_day_without_events_says_so(client, app):
    page = as_role(client, app, "regulator").get("/regulator/T1/days/2026-12-25")
    assert page.status_code == 200 and "No event at table T1 on 2026-12-25" in page.text


@pytest.mark.parametrize("path", ["/regulator/T1/days/9999-12-31", "/regulator/T1/days/0001-01-01",
                                  "/regulator?month=9999-12", "/regulator?month=0001-01",
                                  "/regulator/T1/days/2026-13-01", "/regulator?month=99999-01",
                                  "/regulator/T1/export.zip?from=9999-12-31&to=9999-12-31"])
def test_a_day_or_month_off_the_calendar_is_a_bad_request_not_a_crash(client, app, path):
    page = as_role(client, app, "regulator").get(path)
    assert page.status_code == 400 and ("out of range" in page.text or "write it" in page.text
                                        or "export:" in page.text), page.text


@pytest.mark.parametrize("role", REGULATOR_ROLES)
def test_the_export_download_verifies_with_the_public_key(client, app, keys, scratch, tmp_path,
                                                         role):
    response = as_role(client, app, role).get(EXPORT)
    assert response.status_code == 200, response.text
    assert response.headers["content-type"] == "application/zip"
    assert 'filename="T1_2026-11-29_2026-11-30.zip"' in response.headers["content-disposition"]
    saved = tmp_path / "download.zip"
    saved.write_bytes(response.content)
    result = verify_export(saved, load_public_key(keys.public))
    assert result.ok, result.findings.lines()
    assert list(scratch.iterdir()) == []  # the temporary export is gone once sent


def test_without_a_signing_key_no_export_is_made(day_log, scratch):
    records = TableRecords({"T1": SqliteLogSource(day_log.path)}, load_paytables())
    app = make_app(records, scratch)
    with TestClient(app, follow_redirects=False) as client:
        response = as_role(client, app, "regulator").get(EXPORT)
    assert response.status_code == 503
    assert "DEALER_ASSIST_SIGNING_KEY" in response.text


@pytest.mark.parametrize("path,status,text", [
    ("/regulator/T9/days/2026-11-29", 404, "no table &#x27;T9&#x27; here; tables: T1"),
    ("/regulator/T1/days/29-11-2026", 400, "write it as YYYY-MM-DD"),
    ("/regulator?month=nov", 400, "write it as YYYY-MM"),
    ("/regulator/T1/export.zip?from=2026-12-01&to=2026-12-02", 404, "the log has no event"),
    ("/regulator/T1/export.zip?from=soon&to=2026-12-02", 400, "is not a time"),
    ("/regulator/T9/export.zip?from=2026-11-29&to=2026-11-30", 404, "no table"),
])
def test_bad_requests_are_named(client, app, scratch, path, status, text):
    response = as_role(client, app, "supervisor").get(path)
    assert response.status_code == status
    assert text in response.text
    assert list(scratch.iterdir()) == []


def test_what_a_supervisor_typed_shows_as_text_never_as_markup(day_log, client, app):
    evil = '<script>alert("x")</script>'
    log = SqliteEventLog(day_log.path, checkpoint_every=500, checkpoint_interval=None)
    log.append(decision(day_log.events[-1]["ts"], 1, "accept", "S-104", evil, shoe_id="S4"))
    log.close()
    page = as_role(client, app, "regulator").get(DAY_PAGE)
    assert page.status_code == 200
    assert "<script" not in page.text
    assert "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;" in page.text  # decisions, games
    missing = client.get("/regulator/<script>/days/2026-11-29")
    assert missing.status_code == 404
    assert "<script" not in missing.text and "no table &#x27;&lt;script&gt;&#x27;" in missing.text
