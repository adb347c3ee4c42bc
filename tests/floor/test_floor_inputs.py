"""Every input a browser can send is an input, on the floor too: on every route of the floor
service, a NUL (PostgreSQL's text cannot hold one), text that is not UTF-8 or a control
character in the path, the query, a form or a JSON body gets a 4xx that says what is wrong,
never an HTTP 500 or a traceback in the log; a login with such a name is refused and counted.

Real parts: a real PostgreSQL (tests/floor/conftest.py), the floor service on a real uvicorn
server, a session of each role logged in through the form.
"""

from __future__ import annotations

from collections.abc import Iterator

import httpx2
import pytest

from dealer_assist.accounts.login import REFUSED
from dealer_assist.accounts.pages import INVALID_FIELDS
from dealer_assist.accounts.throttle import CLIENT_FREE
from dealer_assist.floor.web.app import create_floor_app
from tests.floor.conftest import FLOOR_PASSWORD, FLOOR_USERS
from tests.floor.pit_client import csrf_of, login, serve
from tests.pg import ship
from tests.web.inputs_probe import ErrorLog, probe, routes

HOME = {"sup": "/pit/requests", "sur": "/pit/requests", "reg": "/regulator"}
#: The requests that gave HTTP 500 before (issue 67).
KNOWN = [("GET", "/regulator/flags?table={table}%00", None, "reg"),
         ("GET", "/pit/review?table={table}&shoe=a%00b&game=1", None, "sup"),
         ("POST", "/pit/decide", "table={table}&shoe=a%00b&game=1&action=accept&reason=r",
          "sup")]


@pytest.fixture
def served(floor, service, sample, table_log) -> Iterator[tuple[str, str, object]]:
    """The floor service on a real server, one table holding the sample shoe:
    (url, table, app)."""
    table, dsn = floor.add_table()
    ship(dsn, table, table_log(sample))
    app = create_floor_app(service)
    server = serve(app)
    try:
        yield server.url, table, app
    finally:
        server.stop()


def _client(url: str, who: str | None) -> tuple[httpx2.Client, str]:
    client = httpx2.Client(base_url=url, timeout=10, follow_redirects=False)
    if who is None:
        return client, csrf_of(client.get("/login").text)
    assert login(client, who, FLOOR_PASSWORD).status_code == 303
    return client, csrf_of(client.get(HOME[who]).text)


def _refused(response: httpx2.Response) -> bool:
    return response.status_code == 400 and "is missing or not valid" in response.text


@pytest.mark.slow
def test_every_floor_route_refuses_what_the_store_cannot_take_with_a_4xx(served) -> None:
    url, _, app = served
    clients = {who or "visitor": _client(url, who) for who in (None, *FLOOR_USERS)}
    try:
        with ErrorLog() as errors:
            answers = probe(app, clients)
    finally:
        for client, _ in clients.values():
            client.close()
    paths = {route.path for route in routes(app)}
    assert {"/login", "/pit/decide", "/pit/review", "/regulator/flags", "/account/language",
            "/floor-static/{file}"} <= paths
    assert len(answers) > 400
    suffix = INVALID_FIELDS.format("")
    wrong = []
    for answer in answers:
        if answer.sent.url == "/login" and answer.sent.method == "POST":
            # the login reads its own form: a refused login (counted), or a bad token
            ok = answer.status in (401, 403) and answer.message in (
                REFUSED, "the form's security token is missing or out of date: reload the page")
        else:
            ok = answer.status == 400 and answer.message.endswith(suffix) \
                and len(answer.message) > len(suffix) + 3
        if not ok:
            wrong.append((answer.sent, answer.status, answer.message))
    assert wrong == []
    assert errors.records == []


@pytest.mark.parametrize(("method", "path", "form", "who"), KNOWN)
def test_the_requests_that_gave_500_give_400(served, method, path, form, who) -> None:
    url, table, _ = served
    client, csrf = _client(url, who)
    try:
        with ErrorLog() as errors:
            if method == "GET":
                response = client.get(path.format(table=table))
            else:
                response = client.post(path, content=f"csrf={csrf}&{form.format(table=table)}",
                                       headers={"content-type":
                                                "application/x-www-form-urlencoded"})
    finally:
        client.close()
    assert _refused(response), response.text[:500]
    assert errors.records == []


def test_a_login_with_a_nul_in_its_name_is_refused_and_counted(served) -> None:
    url, _, _ = served
    with httpx2.Client(base_url=url, timeout=10, follow_redirects=False) as client, \
            ErrorLog() as errors:
        for name in ["a\x00b", "sup\x00"] * (CLIENT_FREE // 2) + ["\x00"] * (CLIENT_FREE % 2):
            refused = login(client, name, "not the password")
            assert refused.status_code == 401 and REFUSED in refused.text
        throttled = login(client, "sup", FLOOR_PASSWORD)  # the right password: it waits
        assert throttled.status_code == 401 and REFUSED in throttled.text
    assert errors.records == []
