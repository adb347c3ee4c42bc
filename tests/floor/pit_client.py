"""A browser-like client of the floor service for the tests: logs in through the form (the
double-submit CSRF token), keeps the session cookie, reads CSRF tokens from the pages."""

from __future__ import annotations

import re
import time
from typing import Any

import httpx2

from dealer_assist.bootstrap import ServerThread

CSRF = re.compile(r'name="csrf" value="([^"]+)"')


def csrf_of(page: str) -> str:
    found = CSRF.search(page)
    assert found, "no CSRF token on the page"
    return found.group(1)


def login(client: httpx2.Client, name: str, password: str) -> httpx2.Response:
    form = client.get("/login")
    return client.post("/login", data={"name": name, "password": password,
                                       "csrf": csrf_of(form.text), "next": ""},
                       follow_redirects=False)


def serve(app: Any) -> ServerThread:
    """The floor service's `app` on a real server, once it listens to the central store."""
    server = ServerThread(app).start()
    deadline = time.monotonic() + 15
    while not app.state.listener.listening.is_set():
        if time.monotonic() > deadline:
            server.stop()
            raise AssertionError("the floor service never listened to the store")
        time.sleep(0.05)
    return server
