"""The login throttle: growing delays by client and by account, never a lockout, never over
30 s; a try is counted when it begins, so tries at once all count."""

from __future__ import annotations

import threading

import pytest

from dealer_assist.accounts.throttle import (
    ACCOUNT_CAP,
    ACCOUNT_FREE,
    CLIENT_CAP,
    CLIENT_FREE,
    FORGET_AFTER,
    MAX_KEYS,
    MAX_WAIT,
    Limit,
    LoginThrottle,
    shown,
)
from tests.accounts.login_burst import Clock


@pytest.fixture
def clock() -> Clock:
    return Clock()


def fail(throttle: LoginThrottle, client: str, account: str, times: int) -> None:
    """`times` tries that may go on, each counted as it begins (a wrong password)."""
    for _ in range(times):
        assert throttle.begin(client, account) == 0


def fail_when_allowed(throttle: LoginThrottle, clock: Clock, client: str, account: str) -> float:
    """One wrong password as soon as it may go on; the wait it had."""
    wait = throttle.begin(client, account)
    if wait:
        clock.now += wait
        assert throttle.begin(client, account) == 0
    return wait


def test_the_delays_double_after_the_free_tries_up_to_the_cap() -> None:
    limit = Limit(free=3, cap=10.0)
    assert [limit.wait(n) for n in range(9)] == [0, 0, 0, 1, 2, 4, 8, 10, 10]
    assert limit.wait(10_000) == 10.0
    assert Limit(free=0, cap=3600.0).wait(100) == MAX_WAIT  # never over half a minute


def test_a_client_guessing_waits_longer_and_longer(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.9", "S-1", CLIENT_FREE)
    assert throttle.begin("10.0.0.9", "S-1") == 1.0
    assert throttle.begin("10.0.0.9", "S-2") == 1.0  # by client, whatever the name
    clock.now += 1.0
    fail(throttle, "10.0.0.9", "S-3", 1)
    assert throttle.begin("10.0.0.9", "S-4") == 2.0
    for i in range(20):
        fail_when_allowed(throttle, clock, "10.0.0.9", f"x{i}")
    assert throttle.begin("10.0.0.9", "y") == CLIENT_CAP == MAX_WAIT


def test_a_try_refused_for_waiting_is_not_counted(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.9", "S-1", CLIENT_FREE)
    for _ in range(100):
        assert throttle.begin("10.0.0.9", "S-1") == 1.0
    clock.now += 1.0
    fail(throttle, "10.0.0.9", "S-1", 1)
    assert throttle.begin("10.0.0.9", "S-1") == 2.0


def test_an_attacker_cannot_keep_the_owner_out_for_long(clock: Clock) -> None:
    """Many clients failing on one account slow that account down, at most ACCOUNT_CAP."""
    throttle = LoginThrottle(clock)
    for i in range(200):
        fail_when_allowed(throttle, clock, f"10.0.1.{i}", "S-1")
    waited = throttle.begin("10.0.2.1", "S-1")
    assert 0 < waited <= ACCOUNT_CAP
    clock.now += waited
    assert throttle.begin("10.0.2.1", "S-1") == 0  # the owner gets through after it
    throttle.succeeded("10.0.2.1", "S-1")
    assert throttle.begin("10.0.2.1", "D-1") == 0  # other accounts never waited


def test_an_attacker_at_the_owners_own_screen_keeps_them_out_30_s_at_most(clock: Clock) -> None:
    """A thousand wrong passwords from the owner's address, each as soon as it may go on: the
    owner, at that address, never waits more than MAX_WAIT, and then gets in."""
    throttle = LoginThrottle(clock)
    longest = max(fail_when_allowed(throttle, clock, "10.0.0.5", "S-1") for _ in range(1000))
    owner = throttle.begin("10.0.0.5", "S-1")
    assert longest == owner == MAX_WAIT == 30.0
    clock.now += owner
    assert throttle.begin("10.0.0.5", "S-1") == 0
    throttle.succeeded("10.0.0.5", "S-1")
    assert throttle.begin("10.0.0.5", "S-1") == 0  # cleared: the free tries are back


def test_tries_at_once_from_many_threads_get_only_the_free_ones_checked(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    start = threading.Barrier(50)
    allowed: list[float] = []

    def attempt() -> None:
        start.wait()
        allowed.append(throttle.begin("10.0.0.7", "S-1"))

    threads = [threading.Thread(target=attempt) for _ in range(50)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert allowed.count(0.0) == CLIENT_FREE and len(allowed) == 50


def test_the_free_tries_of_an_account_are_counted_across_clients(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    for i in range(ACCOUNT_FREE):
        fail(throttle, f"10.0.3.{i}", "S-9", 1)
    assert throttle.begin("10.0.3.99", "S-9") == 1.0


def test_a_right_password_clears_both_counts(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE)
    assert fail_when_allowed(throttle, clock, "10.0.0.1", "S-1") == 1.0  # the right one
    throttle.succeeded("10.0.0.1", "S-1")
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE)  # the free tries are back
    assert throttle.begin("10.0.0.1", "S-1") == 1.0


def test_failures_are_forgotten_an_hour_after_the_last(clock: Clock) -> None:
    throttle = LoginThrottle(clock)
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE)
    clock.now += FORGET_AFTER
    fail(throttle, "10.0.0.1", "S-1", CLIENT_FREE - 1)
    assert throttle.begin("10.0.0.1", "S-1") == 0


def test_made_up_names_cannot_fill_the_memory(clock: Clock) -> None:
    throttle = LoginThrottle(clock, client=Limit(10**9, 1.0))
    for i in range(MAX_KEYS + 500):
        assert throttle.begin("10.0.0.1", f"nobody-{i}" + "x" * 1000) == 0
    assert len(throttle._accounts._by_key) == MAX_KEYS
    assert "nobody-0" + "x" * 57 not in throttle._accounts._by_key
    assert max(len(key) for key in throttle._accounts._by_key) == 65  # a name cut short


def test_a_name_is_shown_cut_short_with_control_characters_escaped() -> None:
    assert shown("sup") == "'sup'" and shown("10.0.0.1", quoted=False) == "10.0.0.1"
    assert shown("a b\x00", quoted=False) == "'a b\\x00'"
    assert shown("a\x00b\x1b[31mc\n") == "'a\\x00b\\x1b[31mc\\n'"
    long = shown("n" * 65_536)
    assert long == f"{'n' * 64!r}... (65536 characters)" and len(long) < 100
