"""The floor service against the real PostgreSQL: who may use each route, the pit board and
its live stream (LISTEN/NOTIFY -> server-sent events), the queue across tables, the review
page, odd requests (4xx, never 500), and a restart of the service mid-shoe."""

from __future__ import annotations

import json
import re
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import httpx2
import psycopg
import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import REFUSED
from dealer_assist.accounts.throttle import CLIENT_FREE
from dealer_assist.bootstrap import ServerThread
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.shipping.ingest import Ingest, IntegrityAlarm
from tests.floor.conftest import FLOOR_PASSWORD, FLOOR_USERS
from tests.floor.pit_client import csrf_of, login, serve
from tests.pg import ship

# (method, path, roles allowed, a page that sends a visitor to the login form)
ROUTES = [
    ("GET", "/pit", {"supervisor", "surveillance"}, True),
    ("GET", "/pit/board", {"supervisor", "surveillance"}, True),
    ("GET", "/pit/queue", {"supervisor", "surveillance"}, True),
    ("GET", "/pit/queue/list", {"supervisor", "surveillance"}, True),
    ("GET", "/pit/review?table={table}&shoe=SAMPLE-1&game=16", {"supervisor", "surveillance"},
     True),
    ("GET", "/pit/requests", {"supervisor", "surveillance"}, True),
    ("GET", "/api/pit", {"supervisor", "surveillance"}, False),
    ("GET", "/api/pit/requests", {"supervisor", "surveillance"}, False),
    ("GET", "/pit/dealers", {"supervisor", "surveillance"}, True),
    ("GET", "/pit/dealers?from=2026-11-29&to=2026-11-29", {"supervisor", "surveillance"}, True),
    ("GET", "/api/pit/dealers", {"supervisor", "surveillance"}, False),
    ("POST", "/pit/decide", {"supervisor"}, False),
    ("POST", "/account/language", {"supervisor", "surveillance", "regulator"}, False),
    ("POST", "/logout", {"supervisor", "surveillance", "regulator"}, False),
    # the floor's regulator pages (floor/regulator.py), guarded by the floor app
    ("GET", "/regulator", {"regulator"}, True),
    ("GET", "/regulator/flags", {"regulator"}, True),
]
WHO = [None, "sup", "sur", "reg"]


@pytest.fixture
def pit(floor, service, sample, table_log) -> Iterator[tuple[TestClient, str]]:
    """The floor service (a TestClient, lifespan run) with one table holding the sample shoe."""
    table, dsn = floor.add_table()
    ship(dsn, table, table_log(sample))
    with TestClient(create_floor_app(service)) as client:
        yield client, table


def _call(client: TestClient, method: str, path: str, csrf: str | None, table: str,
          headers: dict[str, str] | None = None) -> httpx2.Response:
    if method == "GET":
        return client.get(path, follow_redirects=False, headers=headers)
    return client.post(path, data={"csrf": csrf or "", "table": table, "shoe": "SAMPLE-1",
                                   "game": "16", "action": "accept", "reason": "seen on video",
                                   "lang": "en"},
                       follow_redirects=False, headers=headers)


@pytest.mark.parametrize("who", WHO, ids=lambda w: w or "anonymous")
def test_every_floor_route_refuses_who_may_not_use_it(pit, who: str | None) -> None:
    client, table = pit
    csrf = None
    if who is not None:
        assert login(client, who, FLOOR_PASSWORD).status_code == 303
        page = client.get("/pit/requests" if who != "reg" else "/regulator")
        csrf = csrf_of(page.text)
    for method, template, allowed, is_page in ROUTES:
        path = template.format(table=table)
        if method == "POST" and path == "/logout":
            continue  # below: it ends the session
        response = _call(client, method, path, csrf, table)
        what = f"{who} {method} {path}"
        if who is None:
            if is_page:
                assert response.status_code == 303, what
                assert response.headers["location"].startswith("/login?next=/"), what
            else:
                assert response.status_code == 401, what
        elif FLOOR_USERS[who] in allowed:
            assert response.status_code in (200, 303), (what, response.text[:300])
            if response.status_code == 303:
                assert not response.headers["location"].startswith("/login"), what
        else:
            assert response.status_code == 403, what
            assert "only" in response.text, what
    if who is not None:
        # another site's page may not post here, even with the session and a right token
        crossed = _call(client, "POST", "/logout", csrf, table,
                        {"Origin": "https://evil.example"})
        assert crossed.status_code == 403 and "another site" in crossed.text
        if csrf is not None:
            out = client.post("/logout", data={"csrf": csrf}, follow_redirects=False)
            assert out.status_code == 303
            assert client.get("/api/pit").status_code == 401


def test_a_wrong_password_is_refused_with_one_answer_and_roles_land_at_home(pit) -> None:
    client, _ = pit
    refused = login(client, "sup", "not the password")
    assert refused.status_code == 401 and "Wrong name or password" in refused.text
    unknown = login(client, "nobody", "not the password")
    assert unknown.status_code == 401 and "Wrong name or password" in unknown.text
    assert login(client, "sur", FLOOR_PASSWORD).headers["location"] == "/pit"
    assert client.get("/", follow_redirects=False).headers["location"] == "/pit"


def test_the_board_shows_every_table_and_the_queue_the_flagged_games(floor, pit) -> None:
    client, table = pit
    empty, _ = floor.add_table()  # registered, nothing shipped yet
    login(client, "sur", FLOOR_PASSWORD)
    board = client.get("/api/pit").json()
    rows = {t["table"]: t for t in board["tables"]}
    assert rows[table]["shoe_id"] == "SAMPLE-1" and rows[table]["game"] == 80
    assert rows[table]["variant"] == "standard" and rows[table]["seq"] == 483
    assert rows[table]["last_result"] == "game 80: banker"
    # the two flagged games wait for a decision; game 80's LAST_GAME needs none
    assert (rows[table]["open_flags"], rows[table]["info_flags"]) == (2, 1)
    assert rows[table]["shipping_lag_s"] is not None
    assert rows[empty]["seq"] == 0 and rows[empty]["last_event_age_s"] is None
    page = client.get("/pit")
    assert page.status_code == 200 and f'data-table="{table}"' in page.text
    assert 'src="/floor-static/pit.js"' in page.text
    assert client.get("/floor-static/pit.js").status_code == 200
    queue = client.get("/pit/queue").text
    assert [int(g) for g in re.findall(r'data-game="(\d+)"', queue)] == [16, 17]
    review = client.get(f"/pit/review?table={table}&shoe=SAMPLE-1&game=16")
    assert review.status_code == 200 and "UNNEEDED_DRAW" in review.text
    assert "The rules propose" in review.text
    assert 'action="/pit/decide"' not in review.text  # surveillance watches, does not decide


def test_repeated_failures_are_throttled_with_the_same_answer(pit) -> None:
    client, _ = pit
    for _ in range(CLIENT_FREE):
        assert login(client, "sup", "not the password").status_code == 401
    throttled = login(client, "sup", FLOOR_PASSWORD)  # the right password, from this client
    assert throttled.status_code == 401 and REFUSED in throttled.text


def test_a_central_store_that_does_not_answer_gives_503_not_500(tmp_path) -> None:
    dsn = f"host={tmp_path} port=1 dbname=floor user=nobody connect_timeout=1"
    with TestClient(create_floor_app(dsn)) as client:
        form = client.get("/login")
        assert form.status_code == 200
        response = client.post("/login", data={"name": "sup", "password": FLOOR_PASSWORD,
                                                "csrf": csrf_of(form.text)})
        assert response.status_code == 503
        assert "does not answer" in response.text and "Traceback" not in response.text
        assert client.get("/healthz").json() == {"status": "ok", "listening": False}


@pytest.mark.parametrize(("path", "status"), [
    ("/pit/review?table=T%201&shoe=S&game=1", 400),
    ("/pit/review?table={table}&shoe=SAMPLE-1&game=abc", 400),
    ("/pit/review?table={table}&shoe=SAMPLE-1&game=99999999999999999999", 400),
    ("/pit/review?table={table}&shoe=SAMPLE-1&game=81", 404),
    ("/pit/review?table={table}&shoe=NOPE&game=1", 404),
    ("/pit/review", 400),
    ("/pit/requests?table=%00", 400),
    ("/pit/nothing", 404),
])
def test_odd_requests_get_4xx_never_500(pit, path: str, status: int) -> None:
    client, table = pit
    login(client, "sup", FLOOR_PASSWORD)
    response = client.get(path.format(table=table))
    assert response.status_code == status
    assert "Traceback" not in response.text


@pytest.mark.parametrize(("form", "says"), [
    ({"game": "x"}, "not a game of the floor"),
    ({"table": "<script>"}, "not a game of the floor"),
    ({"game": "81"}, "has no game 81"),
    ({"action": "bogus"}, "one of accept"),
    ({"reason": "   "}, "needs a reason"),
    ({"reason": "x" * 5000}, "at most 500"),
    ({"action": "correct", "P1": "ZZ"}, "correction"),
    ({"action": "correct", "P1": "", "P2": "5H"}, "P2 is given but P1 is empty"),
])
def test_odd_decisions_are_refused_with_a_reason(pit, form: dict[str, str], says: str) -> None:
    client, table = pit
    login(client, "sup", FLOOR_PASSWORD)
    csrf = csrf_of(client.get("/pit/requests").text)
    data = {"csrf": csrf, "table": table, "shoe": "SAMPLE-1", "game": "16", "action": "accept",
            "reason": "seen on video", **form}
    response = client.post("/pit/decide", data=data, follow_redirects=False)
    assert response.status_code in (400, 404), response.text[:300]
    assert says in response.text and "Traceback" not in response.text
    assert client.get("/api/pit/requests").json() == []


def test_a_form_without_its_token_is_refused(pit) -> None:
    client, table = pit
    login(client, "sup", FLOOR_PASSWORD)
    response = client.post("/pit/decide", data={"table": table, "shoe": "SAMPLE-1", "game": "16",
                                                "action": "accept", "reason": "r"})
    assert response.status_code == 403 and "security token" in response.text


# ---- the live board, over a real server -----------------------------------------------------

class Events:
    """The server-sent events of /pit/stream, read on a thread of their own."""

    def __init__(self, url: str, cookies: dict[str, str]) -> None:
        self.got: list[tuple[str, dict[str, Any]]] = []
        self.opened = threading.Event()
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._read, args=(url, cookies), daemon=True)
        self._thread.start()
        assert self.opened.wait(10), "the stream did not open"

    def _read(self, url: str, cookies: dict[str, str]) -> None:
        kind = ""
        with httpx2.stream("GET", url + "pit/stream", cookies=cookies, timeout=30) as response:
            assert response.status_code == 200
            assert response.headers["content-type"].startswith("text/event-stream")
            for line in response.iter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    self.got.append((kind, json.loads(line[6:])))
                    self.opened.set()
                if self._stop.is_set():
                    return

    def wait_for(self, kind: str, check: Any = None, timeout: float = 15.0) -> dict[str, Any]:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            for k, data in list(self.got):
                if k == kind and (check is None or check(data)):
                    return data
            time.sleep(0.05)
        raise AssertionError(f"no {kind} event; got {self.got}")


@contextmanager
def _session(url: str, who: str = "sup") -> Iterator[httpx2.Client]:
    with httpx2.Client(base_url=url, timeout=10) as client:
        assert login(client, who, FLOOR_PASSWORD).status_code == 303
        yield client


def _serve(service: str) -> ServerThread:
    return serve(create_floor_app(service))


def test_a_stored_batch_and_an_alarm_reach_the_open_board(floor, service, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:100])
    ship(dsn, table, log)
    server = _serve(service)
    try:
        with _session(server.url) as client:
            events = Events(server.url, dict(client.cookies))
            assert events.wait_for("hello")["listening"] is True
            log.append_many(sample[100:150])
            ship(dsn, table, log)
            assert events.wait_for("table") == {"table": table}
            rows = {t["table"]: t for t in client.get("/api/pit").json()["tables"]}
            assert rows[table]["seq"] == 150
            other = table_log(sample[:160], name="other")  # a gap's worth of events missing
            with pytest.raises(IntegrityAlarm), psycopg.connect(dsn) as conn:
                Ingest(conn, table).ship(list(other.raw_records())[155:])
            alarm = events.wait_for("alarm")
            assert alarm["table"] == table and "was due" in alarm["found"]
            board = client.get("/pit/board").text
            assert "Integrity alarm" in board and f"table {table}" in board
    finally:
        server.stop()


def test_the_service_restarted_mid_shoe_shows_the_same_and_keeps_updating(
        floor, service, sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:120])
    ship(dsn, table, log)
    first = _serve(service)
    try:
        with _session(first.url) as client:
            before = client.get("/api/pit").json()
    finally:
        first.stop()
    second = _serve(service)
    try:
        with _session(second.url) as client:
            after = client.get("/api/pit").json()
            strip = ("last_event_age_s",)
            assert [{k: v for k, v in t.items() if k not in strip} for t in after["tables"]] \
                == [{k: v for k, v in t.items() if k not in strip} for t in before["tables"]]
            assert client.get("/pit/queue").text.count("data-game=") == 2
            events = Events(second.url, dict(client.cookies))
            log.append_many(sample[120:300])
            ship(dsn, table, log)
            events.wait_for("table", lambda d: d == {"table": table})
            row = next(t for t in client.get("/api/pit").json()["tables"] if t["table"] == table)
            assert row["seq"] == 300 and row["game"] > before["tables"][0]["game"]
    finally:
        second.stop()


@pytest.mark.slow
def test_the_board_listens_again_after_the_central_store_was_down(cluster, floor, service,
                                                                  sample, table_log):
    table, dsn = floor.add_table()
    log = table_log(sample[:100])
    ship(dsn, table, log)
    server = _serve(service)
    try:
        with _session(server.url) as client:
            events = Events(server.url, dict(client.cookies))
            floor.owner.close()
            cluster.stop()
            try:
                deadline = time.monotonic() + 15
                while server.app.state.listener.listening.is_set():
                    assert time.monotonic() < deadline, "the listener did not notice"
                    time.sleep(0.05)
                down = client.get("/pit")
                assert down.status_code == 503 and "does not answer" in down.text
            finally:
                cluster.start()
            events.wait_for("resync", timeout=30)
            log.append_many(sample[100:130])
            ship(dsn, table, log)
            assert events.wait_for("table") == {"table": table}
            row = next(t for t in client.get("/api/pit").json()["tables"] if t["table"] == table)
            assert row["seq"] == 130
    finally:
        server.stop()
        floor.reconnect()
