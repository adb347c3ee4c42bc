"""The dealer on every game, through the web routes: sign-in, rotation, sign-out, each game's
dealer in the log, on the supervisor's and regulator's pages and in the signed export (which
still verifies); restart; the routes' role matrix.

Real parts: the table's SQLite log, real accounts (a cheap argon2) logging in through the login
form, the app's sessions and guards, the export and `dealer-assist verify`.
"""

from __future__ import annotations

import csv
import io
import json
import random
import re
import zipfile
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.auth import require
from dealer_assist.accounts.login import Accounts
from dealer_assist.cli import main
from dealer_assist.config import load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.domain.house import HouseRules
from dealer_assist.export.compare import CsvComparison, Findings
from dealer_assist.export.rows import GAME_COLUMNS
from dealer_assist.services.audit import audit_lines
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.records import TableRecords
from dealer_assist.signing_keys import generate_keys
from dealer_assist.store.log_range import SqliteLogSource
from dealer_assist.store.sqlite_log import SqliteEventLog, SqliteEventReader
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from dealer_assist.web.regulator import REGULATOR_ROLES, regulator_router
from tests.web.conftest import CHEAP, PASSWORD, csrf_of, login

ACCOUNTS = {"D-12": "dealer", "D-07": "dealer", "sup": "supervisor", "reg": "regulator"}
PAYTABLES = load_paytables()
START = datetime(2026, 11, 29, 6, 0, tzinfo=UTC)


def shoe_events() -> list[dict[str, Any]]:
    """A whole 8-deck shoe dealt by the rules with an unneeded draw (game 6) and a missed
    draw (game 17)."""
    dealt = deal_shoe_detailed(random.Random(41), HouseRules(), shoe_id="S1",
                               mistakes=["unneeded_draw", "missed_draw"], start=START)
    assert dealt.expected_flags == [("UNNEEDED_DRAW", 6), ("MISSING_DRAW", 17)]
    return dealt.events


def until_game(events: list[dict[str, Any]], n: int) -> int:
    """The index of the event just before the nth bets_closed (len(events) if fewer)."""
    seen = 0
    for i, e in enumerate(events):
        if e["type"] == "bets_closed":
            seen += 1
            if seen == n:
                return i
    return len(events)


@pytest.fixture
def users(tmp_path: Path) -> Iterator[UserStore]:
    store = UserStore(tmp_path / "users.db", hasher=CHEAP)
    for name, role in ACCOUNTS.items():
        store.add(name, role, PASSWORD)
    yield store
    store.close()


@pytest.fixture
def db(tmp_path: Path) -> Path:
    return tmp_path / "T1.events.db"


@pytest.fixture
def table(db: Path) -> Iterator[LiveTable]:
    log = SqliteEventLog(db, checkpoint_every=500, checkpoint_interval=None)
    yield LiveTable(log, table_id="T1", house=HouseRules(), paytables=PAYTABLES)
    log.close()


@pytest.fixture
def client(table: LiveTable, users: UserStore, db: Path) -> Iterator[TestClient]:
    records = TableRecords({"T1": SqliteLogSource(db)}, PAYTABLES)
    app = create_app(table, Accounts(TableUsers(users)), routers=[regulator_router(
        records, require(*REGULATOR_ROLES, page=True))])
    with TestClient(app, base_url="http://testserver", follow_redirects=False) as c:
        yield c


def as_user(client: TestClient, name: str) -> str:
    """Log `name` in (a fresh session); the CSRF token of its dealer's-shift page."""
    client.cookies.clear()
    assert login(client, name).status_code == 303
    page = client.get("/dealer/shift")
    return csrf_of(page.text) if 'name="csrf"' in page.text else ""


def post(client: TestClient, path: str, csrf: str) -> Any:
    return client.post(path, data={"csrf": csrf})


def deal_with_rotation(client: TestClient, table: LiveTable) -> list[dict[str, Any]]:
    """D-12 deals games 1-10, D-07 relieves D-12 and deals 11-20, then signs out: the rest
    are dealt with no dealer signed in. Returns the events fed."""
    events = shoe_events()
    first, second = until_game(events, 11), until_game(events, 21)
    assert post(client, "/dealer/sign-in", as_user(client, "D-12")).status_code == 303
    for e in events[:first]:
        table.observe(e)
    assert post(client, "/dealer/sign-in", as_user(client, "D-07")).status_code == 303
    for e in events[first:second]:
        table.observe(e)
    assert post(client, "/dealer/sign-out", as_user(client, "D-07")).status_code == 303
    for e in events[second:]:
        table.observe(e)
    return events


def logged(db: Path) -> list[dict[str, Any]]:
    """The events as the table's log holds them."""
    with SqliteEventReader(db) as reader:
        return [json.loads(r.body) for r in reader.raw_records()]


def test_sign_in_rotation_and_sign_out_name_the_dealer_of_every_game(client, table, db):
    events = deal_with_rotation(client, table)
    closes = [e for e in logged(db) if e["type"] == "bets_closed"]
    games = len([e for e in events if e["type"] == "bets_closed"])
    assert len(closes) == games > 20
    assert [c.get("dealer") for c in closes] == (["D-12"] * 10 + ["D-07"] * 10
                                                 + [None] * (games - 20))
    assert table.on_duty() == {"dealer": None, "since": None}
    by_game = {(g["shoe"], g["game"]): g["dealer"] for g in table.dealt_games()}
    assert by_game[("S1", 1)] == "D-12" and by_game[("S1", 11)] == "D-07"
    assert by_game[("S1", 21)] is None


def test_the_dealer_page_shows_who_deals_and_rotation_relieves_the_one_before(client, table):
    csrf = as_user(client, "D-12")
    page = client.get("/dealer/shift").text
    assert "No dealer is signed in" in page and 'action="/dealer/sign-in"' in page
    post(client, "/dealer/sign-in", csrf)
    page = client.get("/dealer/shift").text
    assert re.search(r'class="dealer">D-12<', page)
    assert 'action="/dealer/sign-out"' in page and 'action="/dealer/sign-in"' not in page
    # D-07 comes to the table: D-07 is on duty now, D-12 relieved
    csrf = as_user(client, "D-07")
    assert re.search(r'class="dealer">D-12<', client.get("/dealer/shift").text)
    assert table.sign_in("D-07") == "D-12"
    assert table.on_duty()["dealer"] == "D-07"
    # D-12, relieved, may not sign D-07 out
    refused = post(client, "/dealer/sign-out", as_user(client, "D-12"))
    assert refused.status_code == 409
    assert "D-12 is not the dealer at the table (D-07 is)" in refused.text
    assert table.on_duty()["dealer"] == "D-07"
    # a supervisor may
    assert post(client, "/dealer/sign-out", as_user(client, "sup")).status_code == 303
    assert table.on_duty()["dealer"] is None
    assert csrf


def test_a_restart_carries_on_with_the_dealers_of_the_log(client, table, db):
    deal_with_rotation(client, table)
    table.sign_in("D-12")
    events = shoe_events()
    for e in [{**e, "shoe_id": "S2"} if e["type"] == "new_shoe" else e
              for e in events[:until_game(events, 3)]]:
        table.observe(e)
    table._log.close()  # the service stops (the log has one writer at a time)
    again = LiveTable(SqliteEventLog(db), table_id="T1", house=HouseRules(),
                      paytables=PAYTABLES)
    assert again.dealt_games() == table.dealt_games()
    assert again.on_duty()["dealer"] == "D-12"  # the last game's dealer is still at the table


def test_the_supervisor_sees_flags_per_dealer_and_per_shift(client, table):
    deal_with_rotation(client, table)
    as_user(client, "sup")
    page = client.get("/supervisor/dealers", params={"hours": "12"})
    assert page.status_code == 200
    shifts = re.findall(r'<tr class="shift" data-dealer="([^"]+)" data-games="(\d+)" '
                        r'data-flags="(\d+)"', page.text)
    assert [(d, int(n)) for d, n, _ in shifts][1:] == [("D-07", 10), ("D-12", 10)]
    assert shifts[0][0] == "(none)"
    flagged = {d: int(f) for d, _, f in shifts}
    assert flagged["D-12"] == 1 and flagged["D-07"] == 1  # game 6's and game 17's
    audit = audit_lines([json.dumps(e) for e in shoe_events()], PAYTABLES)
    assert sum(flagged.values()) == sum(len(g["flags"]) for g in audit["shoes"][0]["games"])
    assert 'data-dealer="D-12"><td>D-12</td><td>10</td>' in page.text
    # the pictures are on the page: one bar per dealer, 12 hours, the shoe's score
    bars = re.findall(r'<g class="bar" data-label="([^"]+)" data-value="([^"]+)">', page.text)
    assert ("D-07", str(flagged["D-07"])) in bars and ("D-12", str(flagged["D-12"])) in bars
    assert page.text.count('class="chart by-hour"') == 1
    assert re.search(r'class="score" data-chi2="[\d.]+" data-p="[\d.]+"', page.text)


def test_the_export_carries_the_dealer_on_each_game_and_still_verifies(client, table, db,
                                                                        tmp_path, capsys):
    deal_with_rotation(client, table)
    keys = generate_keys(tmp_path / "keys")
    out = tmp_path / "T1.zip"
    assert main(["export", "--from", "2026-11-29", "--to", "2026-11-30", "--db", str(db),
                 "--out", str(out), "--signing-key", str(keys.private)]) == 0
    with zipfile.ZipFile(out) as zf:
        rows = list(csv.DictReader(io.TextIOWrapper(zf.open("games.csv"), "utf-8",
                                                    newline="")))
    dealers = [r["dealer"] for r in rows]
    assert dealers[:21] == ["D-12"] * 10 + ["D-07"] * 10 + [""]
    assert set(dealers[20:]) == {""}
    capsys.readouterr()
    assert main(["verify", str(out), "--pubkey", str(keys.public)]) == 0, capsys.readouterr()


def test_the_regulator_sees_the_day_per_dealer_and_per_shift(client, table):
    deal_with_rotation(client, table)
    as_user(client, "reg")
    page = client.get("/regulator/T1/days/2026-11-29/dealers")
    assert page.status_code == 200
    shifts = re.findall(r'<tr class="shift" data-dealer="([^"]+)" data-games="(\d+)"',
                        page.text)
    assert [(d, int(n)) for d, n in shifts][1:] == [("D-07", 10), ("D-12", 10)]
    games = len(table.dealt_games())
    assert page.text.count('<line class="game"') == games


ROLE_MATRIX = [
    # (method, path, role, status): None is no session (pages send to the login)
    ("get", "/dealer/shift", None, 303), ("get", "/dealer/shift", "reg", 403),
    ("get", "/dealer/shift", "D-12", 200), ("get", "/dealer/shift", "sup", 200),
    ("post", "/dealer/sign-in", None, 401), ("post", "/dealer/sign-in", "reg", 403),
    ("post", "/dealer/sign-in", "sup", 403), ("post", "/dealer/sign-in", "D-12", 303),
    ("post", "/dealer/sign-out", "reg", 403), ("post", "/dealer/sign-out", "D-12", 303),
    ("get", "/supervisor/dealers", None, 303), ("get", "/supervisor/dealers", "D-12", 403),
    ("get", "/supervisor/dealers", "reg", 403), ("get", "/supervisor/dealers", "sup", 200),
    ("get", "/regulator/T1/days/2026-11-29/dealers", "D-12", 403),
    ("get", "/regulator/T1/days/2026-11-29/dealers", "reg", 200),
    ("get", "/regulator/T1/days/2026-11-29/dealers", "sup", 200),
    ("get", "/regulator/months/2026-11", "D-12", 403),
    ("get", "/regulator/months/2026-11", "reg", 200),
    ("get", "/regulator/months/2026-11", "sup", 200),
]


@pytest.mark.parametrize(("method", "path", "who", "status"), ROLE_MATRIX)
def test_the_role_matrix(client, method, path, who, status):
    csrf = ""
    if who is None:
        client.cookies.clear()
    else:
        csrf = as_user(client, who) or _csrf_any(client)
    response = (client.get(path) if method == "get"
                else client.post(path, data={"csrf": csrf}))
    assert response.status_code == status, response.text[:300]


def _csrf_any(client: TestClient) -> str:
    """A session's CSRF token from a page it may see (a regulator has no dealer's page)."""
    page = client.get("/regulator")
    return csrf_of(page.text) if 'name="csrf"' in page.text else ""


def test_bad_hours_are_a_clear_400(client):
    as_user(client, "sup")
    for hours in ("0", "49", "x", "1e9"):
        page = client.get("/supervisor/dealers", params={"hours": hours})
        assert page.status_code == 400
        assert "a whole number of hours from 1 to 48" in page.text


def test_the_month_shows_flag_rates_per_table_and_per_dealer(client, table):
    deal_with_rotation(client, table)
    as_user(client, "reg")
    page = client.get("/regulator/months/2026-11")
    assert page.status_code == 200
    games = table.dealt_games()
    flagged = {d: sum(1 for g in games if (g["dealer"] or "(none)") == d and g["flags"])
               for d in ("D-12", "D-07", "(none)")}
    share = sum(flagged.values()) / len(games)
    bars = dict(re.findall(r'<g class="bar" data-label="([^"]+)" data-value="([^"]+)">',
                           page.text))
    assert float(bars["T1"]) == pytest.approx(share)
    assert float(bars["D-12"]) == pytest.approx(flagged["D-12"] / 10)
    assert float(bars["(none)"]) == pytest.approx(flagged["(none)"] / (len(games) - 20))
    assert f'<p class="games">Games in the month: {len(games)}</p>' in page.text
    assert client.get("/regulator/months/2026-13").status_code == 400


def test_an_export_written_before_the_dealer_column_still_compares_clean(
        client, table, db, tmp_path):
    """games.csv without the `dealer` column (an export from before it): its rows are checked
    on the columns it has; a changed value is still found."""
    deal_with_rotation(client, table)
    keys = generate_keys(tmp_path / "keys")
    out = tmp_path / "T1.zip"
    assert main(["export", "--from", "2026-11-29", "--to", "2026-11-30", "--db", str(db),
                 "--out", str(out), "--signing-key", str(keys.private)]) == 0
    with zipfile.ZipFile(out) as zf:
        rows = list(csv.reader(io.TextIOWrapper(zf.open("games.csv"), "utf-8", newline="")))
    assert rows[0][-1] == "dealer"

    def compare(games: list[list[str]]) -> list[str]:
        old = tmp_path / "old.zip"
        text = io.StringIO()
        csv.writer(text, lineterminator="\r\n").writerows(games)
        with zipfile.ZipFile(old, "w") as zf:
            zf.writestr("games.csv", text.getvalue())
            for name in ("flags.csv", "decisions.csv"):
                zf.writestr(name, "")
        findings = Findings()
        with zipfile.ZipFile(old) as zf:
            sink = CsvComparison(zf, findings)
            for row in rows[1:]:
                sink.game(row)
            sink.games.finish()
        return [str(f) for f in findings.shown]

    assert compare([r[:-1] for r in rows]) == []
    tampered = [r[:-1] for r in rows]
    winner = GAME_COLUMNS.index("winner")
    tampered[3][winner] = "tie" if tampered[3][winner] != "tie" else "banker"
    assert len(compare(tampered)) == 1
    assert compare(rows) == []  # and the new header, of course
