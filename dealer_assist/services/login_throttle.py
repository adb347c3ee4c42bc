"""Growing delays after failed logins, by client and by account: never a hard lockout.

A lockout that anyone can trigger is a weapon against staff: five wrong passwords from any
screen used to lock a supervisor out for a quarter of an hour. Instead, failures are counted
per client (the address the login came from) and per account name (known or not, so the
answer tells nothing about which names exist), and past a few free tries each key must wait
before its next try is even checked:

    wait = base * 2 ** (failures - free), at most cap

- a client gets `CLIENT_FREE` free failures, then 1 s, 2 s, 4 s ... up to 5 minutes: one
  screen guessing passwords is slowed to a crawl;
- an account gets `ACCOUNT_FREE` free failures (from all clients together), then 1 s, 2 s ...
  up to `ACCOUNT_CAP` (30 s): guessing one account from many screens is slowed too, while
  the longest an attacker can keep its owner waiting is half a minute at a time;
- a try refused for waiting is not checked and does not count; a right password clears both
  counts; a key forgets its failures `FORGET_AFTER` after its last one.

Pure and in memory (a restart forgets): `clock` gives monotonic seconds. The counts are kept
for at most `MAX_KEYS` keys, so a client spraying made-up names cannot fill the memory.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

CLIENT_FREE = 5
CLIENT_CAP = 300.0
ACCOUNT_FREE = 10
ACCOUNT_CAP = 30.0
BASE = 1.0
FORGET_AFTER = 3600.0
MAX_KEYS = 10_000


@dataclass(frozen=True, slots=True)
class Limit:
    """How many failures are free, and the longest wait after more."""

    free: int
    cap: float

    def wait(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return min(self.cap, BASE * 2.0 ** min(failures - self.free, 30))


class _Counts:
    """Failures and the time of the last one, per key; the oldest dropped past `MAX_KEYS`."""

    def __init__(self, limit: Limit) -> None:
        self.limit = limit
        self._by_key: OrderedDict[str, tuple[int, float]] = OrderedDict()

    def wait(self, key: str, now: float) -> float:
        failures, last = self._by_key.get(key, (0, now))
        if now - last >= FORGET_AFTER:
            self._by_key.pop(key, None)
            return 0.0
        return max(0.0, last + self.limit.wait(failures) - now)

    def failed(self, key: str, now: float) -> None:
        failures, last = self._by_key.pop(key, (0, now))
        if now - last >= FORGET_AFTER:
            failures = 0
        self._by_key[key] = (failures + 1, now)
        while len(self._by_key) > MAX_KEYS:
            self._by_key.popitem(last=False)

    def clear(self, key: str) -> None:
        self._by_key.pop(key, None)


class LoginThrottle:
    """`wait(client, account)` before checking a password; then `failed` or `succeeded`."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *,
                 client: Limit = Limit(CLIENT_FREE, CLIENT_CAP),
                 account: Limit = Limit(ACCOUNT_FREE, ACCOUNT_CAP)) -> None:
        self._clock = clock
        self._clients = _Counts(client)
        self._accounts = _Counts(account)
        self._lock = threading.Lock()

    def wait(self, client: str, account: str) -> float:
        """Seconds before this client may try this account (0: it may try now)."""
        now = self._clock()
        with self._lock:
            return max(self._clients.wait(client, now), self._accounts.wait(account, now))

    def failed(self, client: str, account: str) -> None:
        now = self._clock()
        with self._lock:
            self._clients.failed(client, now)
            self._accounts.failed(account, now)

    def succeeded(self, client: str, account: str) -> None:
        with self._lock:
            self._clients.clear(client)
            self._accounts.clear(account)
