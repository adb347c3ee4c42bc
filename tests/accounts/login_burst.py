"""Many logins at once against a running service, and argon2 that counts the passwords it
checks: for the tests that the login throttle holds under concurrency (table and floor), and
those tests' one check, `only_the_free_tries_checked`, run on each service."""

from __future__ import annotations

import threading
from collections.abc import Callable
from typing import Any

import httpx2
from argon2 import PasswordHasher

from dealer_assist.accounts.login import REFUSED
from dealer_assist.accounts.throttle import CLIENT_FREE, MAX_WAIT
from tests.web.conftest import csrf_of

#: A login through the form, as a browser sends it: (client, name, password) -> the answer.
FormLogin = Callable[[httpx2.Client, str, str], httpx2.Response]


class Clock:
    """The throttle's clock, the test's to move: to play a wait out without waiting."""

    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


class CountingHasher(PasswordHasher):
    """argon2 at its default cost (a check takes tens of milliseconds, as in service),
    counting every password it checks: the outermost boundary of a login."""

    def __init__(self) -> None:
        super().__init__()
        self.checked = 0
        self._lock = threading.Lock()

    def verify(self, hash: str | bytes, password: str | bytes) -> Any:  # noqa: A002
        with self._lock:
            self.checked += 1
        return super().verify(hash, password)


def burst(url: str, name: str, password: str, times: int = 50) -> list[httpx2.Response]:
    """`times` logins of `name` sent at once from one address, each by its own client (its
    own login form and CSRF token): all wait at a barrier, then post together."""
    clients = [httpx2.Client(base_url=url, timeout=120, follow_redirects=False)
               for _ in range(times)]
    try:
        tokens = [csrf_of(client.get("/login").text) for client in clients]
        start = threading.Barrier(times)
        answers: list[httpx2.Response | None] = [None] * times

        def send(i: int) -> None:
            start.wait()
            answers[i] = clients[i].post("/login", data={
                "name": name, "password": password, "csrf": tokens[i], "next": ""})

        threads = [threading.Thread(target=send, args=(i,)) for i in range(times)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(120)
    finally:
        for client in clients:
            client.close()
    assert all(answer is not None for answer in answers), "a login got no answer"
    return [answer for answer in answers if answer is not None]


def only_the_free_tries_checked(url: str, hasher: CountingHasher, clock: Clock, name: str,
                                password: str, login: FormLogin) -> None:
    """50 wrong passwords for `name` at once from one address: all refused alike, only the
    free tries checked; the owner's right password from that address then waits (not even
    checked) until the throttle's clock has moved MAX_WAIT on, half a minute at most, as
    docs/service.md says."""
    answers = burst(url, name, "not the password")
    assert [a.status_code for a in answers] == [401] * 50
    assert all(REFUSED in a.text for a in answers)
    assert hasher.checked == CLIENT_FREE
    with httpx2.Client(base_url=url, timeout=30, follow_redirects=False) as owner:
        assert login(owner, name, password).status_code == 401  # the same address: it waits
        assert hasher.checked == CLIENT_FREE  # and its password was not even checked
        clock.now += MAX_WAIT
        assert login(owner, name, password).status_code == 303
    assert hasher.checked == CLIENT_FREE + 1
