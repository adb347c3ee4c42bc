"""Many logins at once against a running service, and argon2 that counts the passwords it
checks: for the tests that the login throttle holds under concurrency (table and floor)."""

from __future__ import annotations

import threading
from typing import Any

import httpx2
from argon2 import PasswordHasher

from tests.web.conftest import csrf_of


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
