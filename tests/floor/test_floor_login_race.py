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

from dealer_assist.floor.users import add_user
from dealer_assist.floor.web.accounts import FloorAccounts
from dealer_assist.floor.web.app import create_floor_app
from dealer_assist.login import REFUSED
from dealer_assist.services.login_throttle import CLIENT_FREE, MAX_WAIT, LoginThrottle
from tests.floor.conftest import FLOOR_PASSWORD
from tests.floor.pit_client import login, serve
from tests.web.login_burst import Clock, CountingHasher, burst


@pytest.fixture
def served(floor, service) -> Iterator[tuple[str, CountingHasher, Clock]]:
    """The floor service on a real server with a supervisor `boss` (argon2 at its default
    cost): (url, the counting hasher, the throttle's clock)."""
    add_user(floor.owner, "boss", "supervisor", FLOOR_PASSWORD, hasher=PasswordHasher())
    hasher, clock = CountingHasher(), Clock()
    app = create_floor_app(service)
    app.state.accounts = FloorAccounts(app.state.pool, LoginThrottle(clock), hasher=hasher)
    server = serve(app)
    try:
        yield server.url, hasher, clock
    finally:
        server.stop()


@pytest.mark.slow
def test_fifty_wrong_passwords_at_once_get_only_the_free_ones_checked(served) -> None:
    url, hasher, clock = served
    answers = burst(url, "boss", "not the password")
    assert [a.status_code for a in answers] == [401] * 50
    assert all(REFUSED in a.text for a in answers)
    assert hasher.checked == CLIENT_FREE
    with httpx2.Client(base_url=url, timeout=30, follow_redirects=False) as owner:
        assert login(owner, "boss", FLOOR_PASSWORD).status_code == 401  # the same address
        assert hasher.checked == CLIENT_FREE  # its password not even checked
        clock.now += MAX_WAIT  # half a minute at most, as the docs say
        assert login(owner, "boss", FLOOR_PASSWORD).status_code == 303
    assert hasher.checked == CLIENT_FREE + 1


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
