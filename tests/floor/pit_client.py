"""A browser-like client of the floor service for the tests: logs in through the form (the
double-submit CSRF token), keeps the session cookie, reads CSRF tokens from the pages."""

from __future__ import annotations

import re

import httpx2

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
