"""The table's login throttle holds under concurrency, and a login name is logged cut short.

Real parts: a real uvicorn server on 127.0.0.1 (its thread pool checks the passwords), the
users file with argon2 at its default cost, counted where it checks a password; the
throttle's clock is the test's, to play the wait out.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from dealer_assist.accounts.login import REFUSED, Accounts
from dealer_assist.accounts.throttle import LoginThrottle
from dealer_assist.bootstrap import ServerThread
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.users import TableUsers, UserStore
from dealer_assist.web.app import create_app
from tests.accounts.login_burst import Clock, CountingHasher, only_the_free_tries_checked
from tests.floor.pit_client import login as form_login
from tests.web.conftest import PASSWORD, login


@pytest.fixture
def served(tmp_path: Path, table: LiveTable) -> Iterator[tuple[str, CountingHasher, Clock]]:
    """The table's app on a real server, one supervisor `sup`: (url, hasher, throttle clock)."""
    hasher, clock = CountingHasher(), Clock()
    users = UserStore(tmp_path / "users.db", hasher=hasher)
    users.add("sup", "supervisor", PASSWORD)
    server = ServerThread(create_app(table, Accounts(TableUsers(users), LoginThrottle(clock)))).start()
    try:
        yield server.url, hasher, clock
    finally:
        server.stop()
        users.close()


@pytest.mark.slow
def test_fifty_wrong_passwords_at_once_get_only_the_free_ones_checked(served) -> None:
    url, hasher, clock = served
    only_the_free_tries_checked(url, hasher, clock, "sup", PASSWORD, form_login)


def test_a_name_with_a_nul_is_a_refused_login_and_counts(client: TestClient) -> None:
    for name in ["a\x00b", "sup\x00", "\u00e9" * 3, "s" * 65]:
        refused = login(client, name, "not the password")
        assert refused.status_code == 401 and REFUSED in refused.text
    refused = login(client, "sup\x00", "not the password")
    assert refused.status_code == 401 and REFUSED in refused.text
    throttled = login(client, "sup")  # the right password, from the same client: it waits
    assert throttled.status_code == 401 and REFUSED in throttled.text


def test_a_long_or_odd_name_is_logged_cut_short_and_escaped(
        client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.INFO, logger="dealer_assist.login")
    login(client, "n" * 65_536, "not the password")
    login(client, "a\x1b[2J\r\nlogin: name='boss' role=supervisor", "not the password")
    lines = [r.getMessage() for r in caplog.records if r.name == "dealer_assist.login"]
    assert len(lines) == 2 and all(line.startswith("login failed: ") for line in lines)
    assert max(len(line) for line in lines) < 300
    assert "(65536 characters)" in lines[0]
    assert "\x1b" not in lines[1] and "\n" not in lines[1] and "\r" not in lines[1]
    assert "\\x1b[2J\\r\\nlogin" in lines[1]
