"""Every route and every role; login, throttle, cookies, CSRF, Origin; decisions through the console."""

from __future__ import annotations

import html
import json
import logging
import re
import threading
from collections.abc import Iterator
from typing import Any

import httpx2
import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import REFUSED, Accounts
from dealer_assist.accounts.throttle import CLIENT_FREE
from dealer_assist.bootstrap import ServerThread
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.log import MemoryEventLog
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.tracebuild import Trace
from tests.web.conftest import PASSWORD, ROLES, csrf_of, login

# (method, path, roles allowed, a page that sends a visitor to the login form)
PROTECTED = [
    ("GET", "/supervisor", {"supervisor"}, True),
    ("GET", "/supervisor/queue", {"supervisor"}, True),
    ("GET", "/supervisor/review?shoe=S1&game=2", {"supervisor"}, True),
    ("GET", "/supervisor/history", {"supervisor", "regulator"}, True),
    ("GET", "/supervisor/history?shoe=S1&flag=UNNEEDED_DRAW", {"supervisor", "regulator"}, True),
    ("GET", "/dealer", {"dealer", "supervisor"}, True),
    ("GET", "/api/review-queue", {"supervisor"}, False),
    ("GET", "/api/history", {"supervisor", "regulator"}, False),
    ("POST", "/supervisor/decide", {"supervisor"}, False),
    ("POST", "/dealer/reveal", {"dealer", "supervisor"}, False),
    ("POST", "/logout", {"dealer", "supervisor", "regulator"}, False),
    ("GET", "/supervisor/stream", {"supervisor"}, False),
]
WHO = [None, "dea", "reg", "sup"]


def call(client: TestClient, method: str, path: str, csrf: str | None) -> httpx2.Response:
    if method == "GET":
        return client.get(path)
    data = {"csrf": csrf or "", "shoe": "S1", "game": "2", "action": "accept",
            "reason": "checked on video", "side": "all"}
    return client.post(path, data=data)


@pytest.mark.parametrize("who", WHO, ids=lambda w: w or "anonymous")
@pytest.mark.parametrize("method, path, allowed, page", PROTECTED,
                         ids=[f"{m} {p}" for m, p, _, _ in PROTECTED])
def test_every_route_refuses_who_may_not_use_it(client: TestClient, who: str | None,
                                                method: str, path: str, allowed: set[str],
                                                page: bool) -> None:
    csrf = None
    if who is not None:
        assert login(client, who).status_code == 303
        csrf = csrf_of(client.get("/supervisor" if who == "sup" else "/dealer" if who == "dea"
                                  else "/supervisor/history").text)
    if who is None or ROLES[who] in allowed and path == "/supervisor/stream":
        if who is not None:
            return  # the stream of a supervisor never ends: see test_the_console_stream below
        response = call(client, method, path, csrf)
        if page:
            assert response.status_code == 303
            assert response.headers["location"].startswith("/login?next=/")
        else:
            assert response.status_code == 401
        return
    response = call(client, method, path, csrf)
    if ROLES[who] in allowed:
        assert response.status_code in (200, 303), response.text
        if response.status_code == 303:
            assert not response.headers["location"].startswith("/login?")
    else:
        assert response.status_code == 403
        assert "only" in response.text


def test_the_public_display_needs_no_login(client: TestClient) -> None:
    page = client.get("/")
    assert page.status_code == 200 and 'src="/static/display.js"' in page.text
    assert client.get("/static/display.js").status_code == 200
    snapshot = client.get("/api/table").json()
    assert snapshot["table"] == "T1" and snapshot["game"]["number"] == 2
    assert "Content-Security-Policy" in page.headers and page.headers["X-Frame-Options"] == "DENY"


def test_nothing_else_is_served(client: TestClient) -> None:
    for path in ("/docs", "/openapi.json", "/redoc", "/admin"):
        assert client.get(path).status_code == 404


def test_the_session_cookie_is_httponly_and_samesite_strict(client: TestClient) -> None:
    response = login(client, "sup")
    assert response.status_code == 303 and response.headers["location"] == "/supervisor"
    cookie = next(c for c in response.headers.get_list("set-cookie") if c.startswith("da_session="))
    flags = {part.strip().lower() for part in cookie.split(";")}
    assert {"httponly", "samesite=strict", "path=/"} <= flags
    assert "secure" not in flags  # plain HTTP here; `secure_cookies = true` behind HTTPS


def test_one_answer_for_unknown_wrong_and_throttled_and_no_lockout_of_the_owner(
        client: TestClient, table: LiveTable, users: UserStore,
        caplog: pytest.LogCaptureFixture) -> None:
    """An anonymous client guessing is slowed down by growing delays, every try logged, and
    the answer never tells an unknown name from a wrong password or a throttled try; the
    supervisor, from their own screen, still gets in at once."""
    caplog.set_level(logging.INFO, logger="dealer_assist.login")
    answers = set()
    for name in ["nobody", *["sup"] * (CLIENT_FREE + 3)]:
        response = login(client, name, "not the password")
        assert response.status_code == 401 and "da_session" not in client.cookies
        answers.add(re.search(r'class="notice error"[^>]*>(.*?)</p>', response.text).group(1))
    assert answers == {html.escape(REFUSED, quote=True)}
    response = login(client, "sup")  # the right password, from the throttled client
    assert response.status_code == 401
    failed = [r.getMessage() for r in caplog.records if r.getMessage().startswith("login failed")]
    throttled = [r.getMessage() for r in caplog.records if "login throttled" in r.getMessage()]
    assert "reason=unknown_user" in failed[0] and "client=testclient" in failed[0]
    assert len(failed) == CLIENT_FREE and len(throttled) == 5  # 4 wrong, 1 right
    assert all("name='sup'" in line for line in throttled)
    owner = TestClient(client.app, client=("10.1.2.3", 40000), follow_redirects=False)
    with owner:
        assert login(owner, "sup").status_code == 303 and "da_session" in owner.cookies
    assert any("login: name='sup' role=supervisor client=10.1.2.3" in r.getMessage()
               for r in caplog.records)
    assert users.get("sup").failed_logins == 0


def test_a_form_posted_from_another_site_is_refused(client: TestClient) -> None:
    login(client, "sup")
    page = client.get("/supervisor/review?shoe=S1&game=2")
    data = {"csrf": csrf_of(page.text), "shoe": "S1", "game": "2", "action": "accept",
            "reason": "checked on video", "side": "all"}
    for origin in ("https://evil.example", "null", "http://testserver.evil.example"):
        response = client.post("/supervisor/decide", data=data, headers={"Origin": origin})
        assert response.status_code == 403 and "another site" in response.text
    assert client.get("/api/review-queue").json()  # nothing was decided
    response = client.post("/supervisor/decide", data=data,
                           headers={"Origin": "http://testserver"})
    assert response.status_code == 303


def test_login_without_its_form_token_is_refused(client: TestClient) -> None:
    client.get("/login")
    response = client.post("/login", data={"name": "sup", "password": PASSWORD,
                                           "csrf": "forged"})
    assert response.status_code == 403 and "da_session" not in client.cookies


def test_login_goes_back_to_a_local_page_only(client: TestClient) -> None:
    assert login(client, "sup", next_path="/supervisor/history").headers["location"] == \
        "/supervisor/history"
    client.cookies.clear()
    assert login(client, "sup", next_path="//evil.example/x").headers["location"] == "/supervisor"
    client.cookies.clear()
    assert login(client, "dea").headers["location"] == "/dealer"


def test_a_decision_without_the_csrf_token_is_refused(client: TestClient, log: Any) -> None:
    login(client, "sup")
    before = log.head().seq
    for token in ("", "forged"):
        response = client.post("/supervisor/decide", data={
            "csrf": token, "shoe": "S1", "game": "2", "action": "void", "reason": "x"})
        assert response.status_code == 403
    assert log.head().seq == before


def test_a_supervisor_resolves_a_flagged_game(client: TestClient, table: LiveTable,
                                              log: Any) -> None:
    login(client, "sup")
    console = client.get("/supervisor")
    assert 'data-game="2"' in console.text and "UNNEEDED_DRAW" in console.text
    assert "A card drawn after the game was complete" in console.text  # the rule
    assert "The rules propose" in console.text and "5D is set aside" in console.text
    assert client.get("/api/review-queue").json()[0]["game"] == 2
    csrf = csrf_of(console.text)
    refused = client.post("/supervisor/decide", data={"csrf": csrf, "shoe": "S1", "game": "2",
                                                      "action": "void", "reason": "  "})
    assert refused.status_code == 400 and "needs a reason" in refused.text
    done = client.post("/supervisor/decide", data={"csrf": csrf, "shoe": "S1", "game": "2",
                                                   "action": "void", "reason": "dealer erred"})
    assert done.status_code == 303 and done.headers["location"] == "/supervisor?decided=2"
    assert "Decision recorded for game 2" in client.get(done.headers["location"]).text
    assert client.get("/api/review-queue").json() == []
    assert table.public()["alert"] is None
    _, event = list(log.read())[-1]
    assert (event["type"], event["by"], event["action"], event["reason"]) == (
        "decision", "sup", "void", "dealer erred")
    history = client.get("/supervisor/history", params={"flag": "UNNEEDED_DRAW"})
    assert "dealer erred" in history.text
    assert "dealer erred" not in client.get("/supervisor/history",
                                            params={"flag": "DATA_GAP"}).text
    assert client.get("/api/history", params={"shoe": "S1"}).json()[0]["by"] == "sup"


def test_what_people_type_shows_as_text_never_as_markup(client: TestClient) -> None:
    evil = '<script>alert("x")</script>'
    shown = "&lt;script&gt;alert(&quot;x&quot;)&lt;/script&gt;"
    form = client.get("/login")
    failed = client.post("/login", data={"name": evil, "password": "wrong",
                                         "csrf": csrf_of(form.text), "next": ""})
    assert failed.status_code == 401
    assert "<script" not in failed.text and f'value="{shown}"' in failed.text
    login(client, "sup")
    csrf = csrf_of(client.get("/supervisor").text)
    decision = {"csrf": csrf, "shoe": "S1", "game": "2", "reason": evil}
    refused = client.post("/supervisor/decide", data={**decision, "action": evil})
    assert refused.status_code == 400
    assert "<script" not in refused.text and f">{shown}</textarea>" in refused.text
    done = client.post("/supervisor/decide", data={**decision, "action": "void"})
    assert done.status_code == 303
    history = client.get("/supervisor/history")
    assert "<script" not in history.text and f"<td>{shown}</td>" in history.text


def test_a_correction_is_entered_by_position(client: TestClient, table: LiveTable) -> None:
    login(client, "sup")
    csrf = csrf_of(client.get("/supervisor").text)
    form = {"csrf": csrf, "shoe": "S1", "game": "2", "action": "correct", "reason": "video",
            "P1": "2h", "P2": "4c", "P3": "", "B1": "3D", "B2": "6S", "B3": ""}
    gap = client.post("/supervisor/decide", data={**form, "P2": "", "P3": "4C"})
    assert gap.status_code == 400 and "P3 is given but P2 is empty" in gap.text
    wrong = client.post("/supervisor/decide", data={**form, "B2": "KS"})
    assert wrong.status_code == 400 and "the rules give Banker a third card" in wrong.text
    assert client.post("/supervisor/decide", data=form).status_code == 303
    item = table.review("S1", 2)
    assert item is not None
    assert (item["player"], item["banker"], item["winner"]) == (["2H", "4C"], ["3D", "6S"],
                                                                "banker")


def test_a_dealer_reveals_the_cards(client: TestClient, table: LiveTable, log: Any) -> None:
    table.observe(Trace().close().cards("4H", "5D", "2S", "8C").events[0])
    login(client, "dea")
    page = client.get("/dealer")
    assert page.status_code == 200 and "All cards opened" in page.text
    response = client.post("/dealer/reveal", data={"csrf": csrf_of(page.text), "side": "player"})
    assert response.status_code == 303
    _, event = list(log.read())[-1]
    assert (event["type"], event["src"], event["side"]) == ("reveal", "dealer", "player")


def test_logout_ends_the_session(client: TestClient) -> None:
    login(client, "sup")
    csrf = csrf_of(client.get("/supervisor").text)
    token = client.cookies["da_session"]
    assert client.post("/logout", data={"csrf": csrf}).status_code == 303
    client.cookies.set("da_session", token)  # an old cookie is worth nothing now
    assert client.get("/api/review-queue").status_code == 401


# ---- the streams, over a real server ------------------------------------------------------

@pytest.fixture
def server(table: LiveTable, users: UserStore) -> Iterator[ServerThread]:
    running = ServerThread(create_app(table, Accounts(TableUsers(users)))).start()
    yield running
    running.stop()


def read_events(url: str, n: int, cookies: dict[str, str] | None = None,
                after: threading.Event | None = None) -> list[dict[str, Any]]:
    events: list[dict[str, Any]] = []
    with httpx2.stream("GET", url, cookies=cookies, timeout=10) as response:
        assert response.status_code == 200
        assert response.headers["content-type"].startswith("text/event-stream")
        for line in response.iter_lines():
            if line.startswith("data: "):
                events.append(json.loads(line[6:]))
                if after is not None and len(events) == 1:
                    after.set()
                if len(events) == n:
                    break
    return events


def test_the_display_stream_pushes_each_change(server: ServerThread, table: LiveTable) -> None:
    connected = threading.Event()
    got: list[list[dict[str, Any]]] = []
    reader = threading.Thread(target=lambda: got.append(
        read_events(server.url + "events", 3, after=connected)))
    reader.start()
    assert connected.wait(10)
    for event in Trace().close().cards("4H", "5D").events:
        table.observe(event)
    reader.join(10)
    (views,) = got
    assert [v["game"]["number"] for v in views] == [2, 3, 3]
    assert [v["game"]["cards_out"] for v in views] == [5, 0, 1]
    assert views[2]["game"]["player"] == [{"pos": "P1", "dealt": True, "card": None}]


def test_the_console_stream_needs_a_supervisor(server: ServerThread, table: LiveTable) -> None:
    url = server.url + "supervisor/stream"
    assert httpx2.get(url, timeout=5).status_code == 401
    with httpx2.Client(base_url=server.url, timeout=5) as c:
        form = c.get("/login")
        c.post("/login", data={"name": "sup", "password": PASSWORD, "csrf": csrf_of(form.text)})
        cookies = {"da_session": c.cookies["da_session"]}
    connected = threading.Event()
    got: list[list[dict[str, Any]]] = []
    reader = threading.Thread(target=lambda: got.append(
        read_events(url, 2, cookies, after=connected)))
    reader.start()
    assert connected.wait(10)
    table.decide("sup", 2, "accept", "fine")
    reader.join(10)
    (events,) = got
    assert events[0]["pending"] == 1 and events[1]["pending"] == 0
    assert events[0]["key"] != events[1]["key"]


def test_an_empty_table_shows_an_empty_display() -> None:
    from dealer_assist.config import load_paytables
    from dealer_assist.domain.house import HouseRules

    empty = LiveTable(MemoryEventLog(), table_id="T2", house=HouseRules(),
                      paytables=load_paytables())
    view = empty.public()
    assert view["shoe"] is None and view["game"] is None
    assert view["action"]["headline"] == "load a new shoe"


def test_the_shoe_ports_error_is_for_supervisors_not_for_the_public_display(
        client: TestClient, table: LiveTable) -> None:
    table.link_changed("shoe", "down", "could not open port /dev/ttyUSB7: [Errno 13] denied")
    public = client.get("/api/table").text
    assert "ttyUSB7" not in public and "Errno" not in public and "not connected" in public
    login(client, "sup")
    assert "could not open port /dev/ttyUSB7" in client.get("/supervisor").text
