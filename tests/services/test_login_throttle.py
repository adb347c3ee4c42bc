"""The login throttle: growing delays by client and by account, never a lockout."""

from __future__ import annotations

import pytest

from dealer_assist.services.login_throttle import (
    ACCOUNT_CAP,
    ACCOUNT_FREE,
    CLIENT_CAP,
    CLIENT_FREE,
    FORGET_AFTER,
    MAX_KEYS,
    Limit,
    LoginThrottle,
)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


@pytest.fixture
def clock() -> Clock:
    return Clock()


def fail(throttle: LoginThrottle, client: str, account: str, times: int) -> None:
    for _ in range(times):
        assert throttle.wait(client, account) == 0
        throttle.failed(client, account)


def test_the_delays_double_after_the_free_tries_up_to_the_cap() -> None:
    limit = Limit(free=3, cap=10.0)
    assert [limit.wait(n) for n in range(9)] == [0, 0, 0, 1, 2, 4, 8, 10, 10]
    assert limit.wait(10_000) == 10.0


def test_a_client_guessing_waits_longer_and_longer(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.9", "S-1", CLIENT_FREE)
    assert throttle.wait("10.0.0.9", "S-1") == 1.0
    assert throttle.wait("10.0.0.9", "S-2") == 1.0  # by client, whatever the name
    clock.now += 1.0
    throttle.failed("10.0.0.9", "S-3")
    assert throttle.wait("10.0.0.9", "S-4") == 2.0
    for _ in range(20):
        clock.now += throttle.wait("10.0.0.9", "x")
        throttle.failed("10.0.0.9", f"x{clock.now}")
    assert throttle.wait("10.0.0.9", "y") == CLIENT_CAP


def test_an_attacker_cannot_keep_the_owner_out_for_long(clock: Clock) -> None:
    """Many clients failing on one account slow that account down, at most ACCOUNT_CAP."""
    throttle = LoginThrottle(clock)
    for i in range(200):
        clock.now += throttle.wait(f"10.0.1.{i}", "S-1")
        throttle.failed(f"10.0.1.{i}", "S-1")
    waited = throttle.wait("10.0.2.1", "S-1")
    assert 0 < waited <= ACCOUNT_CAP
    clock.now += waited
    assert throttle.wait("10.0.2.1", "S-1") == 0  # the owner gets through after it
    assert throttle.wait("10.0.2.1", "D-1") == 0  # other accounts never waited


def test_the_free_tries_of_an_account_are_counted_across_clients(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    for i in range(ACCOUNT_FREE):
        fail(throttle, f"10.0.3.{i}", "S-9", 1)
    assert throttle.wait("10.0.3.99", "S-9") == 1.0


def test_a_right_password_clears_both_counts(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE)
    clock.now += throttle.wait("10.0.0.1", "S-1")
    throttle.succeeded("10.0.0.1", "S-1")
    assert throttle.wait("10.0.0.1", "S-1") == 0
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE - 1)  # the free tries are back


def test_failures_are_forgotten_an_hour_after_the_last(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE)
    clock.now += FORGET_AFTER
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE - 1)
    assert throttle.wait("10.0.0.1", "S-1") == 0


def test_made_up_names_cannot_fill_the_memory(clock: Clock) -> None:
    throttle = LoginThrottle(clock, client=Limit(10**9, 1.0))
    for i in range(MAX_KEYS + 500):
        throttle.failed("10.0.0.1", f"nobody-{i}")
    assert len(throttle._accounts._by_key) == MAX_KEYS
    assert "nobody-0" not in throttle._accounts._by_key
