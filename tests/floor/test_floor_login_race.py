"""The floor's login throttle holds under concurrency, and a login name is logged cut short.

Real parts: a real PostgreSQL (tests/floor/conftest.py), the floor service on a real uvicorn
server (its thread pool checks the passwords), a floor user whose password is hashed with
argon2 at its default cost and checked by a hasher that counts; the throttle's clock is the
test's, to play the wait out.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator

import httpx2
import pytest
from argon2 import PasswordHasher

from dealer_assist.accounts.login import REFUSED, Accounts
from dealer_assist.accounts.throttle import LoginThrottle
from dealer_assist.floor.users import FloorUsers, add_user
from dealer_assist.floor.web.app import create_floor_app
from tests.accounts.login_burst import Clock, CountingHasher, only_the_free_tries_checked
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login, serve


@pytest.fixture
def served(floor, service) -> Iterator[tuple[str, CountingHasher, Clock]]:
    """The floor service on a real server with a supervisor `boss` (argon2 at its default
    cost): (url, the counting hasher, the throttle's clock)."""
    add_user(floor.owner, "boss", "supervisor", FLOOR_PASSWORD, hasher=PasswordHasher())
    hasher, clock = CountingHasher(), Clock()
    app = create_floor_app(service)
    app.state.accounts = Accounts(FloorUsers(app.state.pool, hasher=hasher), LoginThrottle(clock),
                                  label="floor ")
    server = serve(app)
    try:
        yield server.url, hasher, clock
    finally:
        server.stop()


@pytest.mark.slow
def test_fifty_wrong_passwords_at_once_get_only_the_free_ones_checked(served) -> None:
    url, hasher, clock = served
    only_the_free_tries_checked(url, hasher, clock, "boss", FLOOR_PASSWORD, login)


def test_a_long_or_odd_name_is_logged_cut_short_and_escaped(
        served, caplog: pytest.LogCaptureFixture) -> None:
    url, hasher, _ = served
    caplog.set_level(logging.INFO, logger="dealer_assist.login")
    with httpx2.Client(base_url=url, timeout=30, follow_redirects=False) as client:
        for name in ("n" * 65_536, "a\x1b[2J\r\nfloor login: name='boss' role=supervisor"):
            refused = login(client, name, "not the password")
            assert refused.status_code == 401 and REFUSED in refused.text
            assert len(refused.content) < 20_000  # the name is not echoed whole either
    lines = [r.getMessage() for r in caplog.records if r.name == "dealer_assist.login"]
    assert len(lines) == 2 and all(line.startswith("floor login failed: ") for line in lines)
    assert max(len(line) for line in lines) < 300 and "(65536 characters)" in lines[0]
    assert "\x1b" not in lines[1] and "\n" not in lines[1] and "\r" not in lines[1]
    assert "\\x1b[2J\\r\\nfloor login" in lines[1]
    assert hasher.checked == 2  # an unknown name costs the same work as a known one
