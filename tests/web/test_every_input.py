"""Every input a browser can send is an input: on every route of the table service, a NUL,
text that is not UTF-8 or a control character in the path, the query, a form or a JSON body
gets a 4xx that says what is wrong, never an HTTP 500 or a traceback in the log, and nothing
is recorded.

Real parts: the table as `dealer-assist run` builds it (`open_table`: the SQLite log, the
users file, the regulator's pages, /healthz and /metrics) on a real uvicorn server, a session
of each role logged in through the form.
"""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import httpx2
import pytest

from dealer_assist.accounts.login import REFUSED
from dealer_assist.accounts.pages import INVALID_FIELDS
from dealer_assist.bootstrap import ServerThread, Table, open_table
from dealer_assist.config import load_table_config
from tests.floor.pit_client import login
from tests.web.conftest import PASSWORD, ROLES, csrf_of, flagged_trace
from tests.web.inputs_probe import ErrorLog, probe, routes

HOME = {"sup": "/supervisor", "dea": "/dealer", "reg": "/regulator"}


@pytest.fixture
def served(tmp_path: Path) -> Iterator[tuple[Table, str]]:
    path = tmp_path / "table.toml"
    path.write_text('[table]\nid = "T4"\ndatabase = "var/T4.db"\nusers = "var/users.db"\n'
                    '[shoe]\nurl = "emulator"\n[web]\nport = 0\n', encoding="utf-8")
    table = open_table(load_table_config(path), start_shoe=False)
    server = None
    try:
        for name, role in ROLES.items():
            table.users.add(name, role, PASSWORD)
        for event in flagged_trace().events:
            table.live.observe(event)
        server = ServerThread(table.app).start()
        yield table, server.url
    finally:
        if server is not None:
            server.stop()
        table.close()


@pytest.mark.slow
def test_every_route_refuses_what_the_stores_cannot_take_with_a_4xx(served) -> None:
    table, url = served
    clients: dict[str, tuple[httpx2.Client, str]] = {}
    try:
        for who in (None, *ROLES):
            client = httpx2.Client(base_url=url, timeout=10, follow_redirects=False)
            if who is None:
                clients["visitor"] = (client, csrf_of(client.get("/login").text))
                continue
            assert login(client, who, PASSWORD).status_code == 303
            clients[who] = (client, csrf_of(client.get(HOME[who]).text))
        seq = table.live.seq
        with ErrorLog() as errors:
            answers = probe(table.app, clients)
    finally:
        for client, _ in clients.values():
            client.close()
    paths = {route.path for route in routes(table.app)}
    assert {"/login", "/supervisor/decide", "/dealer/reveal", "/regulator/{table}/export.zip",
            "/metrics", "/static/{file}"} <= paths
    assert len(answers) > 400
    wrong = []
    for answer in answers:
        if answer.sent.url.split("?")[0] == "/login" and answer.sent.method == "POST" \
                and "?" not in answer.sent.url:
            # the login reads its own form: a refused login (counted), or a bad token
            ok = answer.status in (401, 403) and answer.message in (
                REFUSED, "the form's security token is missing or out of date: reload the page")
        else:
            ok = answer.status == 400 and answer.message.endswith(
                INVALID_FIELDS.format("")[1:].strip()) and len(answer.message) > 20
        if not ok:
            wrong.append(answer)
    assert [(a.sent, a.status, a.message) for a in wrong] == []
    assert errors.records == []
    # nothing recorded from the web (the shoe's link may have said it is down meanwhile)
    recorded = [event for _, event in table.log.read(after_seq=seq)]
    assert [e for e in recorded if e.get("src") not in ("shoe", "camera", "system")] == []
