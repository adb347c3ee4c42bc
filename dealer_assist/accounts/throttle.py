"""Growing delays after failed logins, by client and by account: never a hard lockout.

A lockout that anyone can trigger is a weapon against staff: five wrong passwords from any
screen used to lock a supervisor out for a quarter of an hour. Instead, failures are counted
per client (the address the login came from) and per account name (known or not, so the
answer tells nothing about which names exist), and past a few free tries each key must wait
before its next try is even checked:

    wait = base * 2 ** (failures - free), at most MAX_WAIT (30 s)

- a client gets `CLIENT_FREE` free failures, then 1 s, 2 s, 4 s ... up to 30 s: one screen
  guessing passwords is slowed to two tries a minute;
- an account gets `ACCOUNT_FREE` free failures (from all clients together), then 1 s, 2 s ...
  up to 30 s: guessing one account from many screens is slowed too;
- no try ever waits longer than `MAX_WAIT`, so whoever fails on purpose, from anywhere (the
  owner's own screen included), keeps the owner out for half a minute at most;
- a try refused for waiting is not checked and does not count; a right password clears both
  counts; a key forgets its failures `FORGET_AFTER` after its last one.

The check and the count are one step: `begin` reserves the try under the lock and counts it as
a failure at once, before the password is checked; `succeeded` takes it back. So tries that
arrive together (a web server checks passwords on a pool of threads) are counted together:
50 wrong passwords sent at once get `CLIENT_FREE` of them checked, not 50.

Pure and in memory (a restart forgets): `clock` gives monotonic seconds. The counts are kept
for at most `MAX_KEYS` keys, and an account name is keyed by its first `KEY_CHARS` characters
(no account name is longer than 64), so a client spraying made-up names cannot fill the memory.
`shown` is a name or an address as a log line may print it: cut short, control characters
escaped.
"""

from __future__ import annotations

import threading
import time
from collections import OrderedDict
from collections.abc import Callable
from dataclasses import dataclass

MAX_WAIT = 30.0
CLIENT_FREE = 5
CLIENT_CAP = MAX_WAIT
ACCOUNT_FREE = 10
ACCOUNT_CAP = MAX_WAIT
BASE = 1.0
FORGET_AFTER = 3600.0
MAX_KEYS = 10_000
#: An account name's characters that key its count (names are at most 64 characters).
KEY_CHARS = 65
#: The characters of a name a log line shows.
SHOWN_CHARS = 64


@dataclass(frozen=True, slots=True)
class Limit:
    """How many failures are free, and the longest wait after more (never over MAX_WAIT)."""

    free: int
    cap: float

    def wait(self, failures: int) -> float:
        if failures < self.free:
            return 0.0
        return min(self.cap, MAX_WAIT, BASE * 2.0 ** min(failures - self.free, 30))


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
    """`begin(client, account)` before checking a password (0: go on, the try counted as a
    failure); then `succeeded` if the password was right."""

    def __init__(self, clock: Callable[[], float] = time.monotonic, *,
                 client: Limit = Limit(CLIENT_FREE, CLIENT_CAP),
                 account: Limit = Limit(ACCOUNT_FREE, ACCOUNT_CAP)) -> None:
        self._clock = clock
        self._clients = _Counts(client)
        self._accounts = _Counts(account)
        self._lock = threading.Lock()

    def begin(self, client: str, account: str) -> float:
        """0.0 when this client may try this account now: the try is then reserved, counted as
        a failure of both at once (`succeeded` clears them). Else the seconds this client must
        still wait; the try must not be checked, and is not counted."""
        account = account[:KEY_CHARS]
        now = self._clock()
        with self._lock:
            wait = max(self._clients.wait(client, now), self._accounts.wait(account, now))
            if wait == 0:
                self._clients.failed(client, now)
                self._accounts.failed(account, now)
            return wait

    def succeeded(self, client: str, account: str) -> None:
        """A right password: both counts cleared (the free tries are back)."""
        with self._lock:
            self._clients.clear(client)
            self._accounts.clear(account[:KEY_CHARS])


def shown(text: str, quoted: bool = True) -> str:
    """`text` (a login name, an address) as a log line shows it: its first SHOWN_CHARS
    characters, quoted, every control or unprintable character escaped, and how long it
    was when it was cut. `quoted=False`: a short printable text (an address) as it is."""
    if not quoted and len(text) <= SHOWN_CHARS and text.isprintable() and " " not in text:
        return text
    if len(text) <= SHOWN_CHARS:
        return repr(text)
    return f"{text[:SHOWN_CHARS]!r}... ({len(text)} characters)"
