"""Logins for the web: the users file behind the login throttle, every attempt logged.

`UserAccounts` is the web's `Accounts` port (dealer_assist.web.auth) over the users file
(dealer_assist.store.users: argon2). Before a password is checked the throttle reserves the
try, or says that this client and this account must wait (services.login_throttle: growing
delays, never a lockout); a try reserved counts as a failure unless the password was right, so
tries sent at once all count. A name no account can have (over 64 characters, a NUL or another
character names never hold) is refused as an unknown name, after the same work, and counts
too. A person at the screen reads one answer for an unknown name, a wrong password, a
disabled account and a throttled try, so the answer tells no one which names exist; the
operator's log tells them apart: every login, failure and throttle is a line on the
`dealer_assist.login` logger with the name (cut short, control characters escaped), the
client's address and the outcome.
"""

from __future__ import annotations

import logging
import threading

from dealer_assist.services.login_throttle import LoginThrottle, shown
from dealer_assist.store.sessions import SessionEnds
from dealer_assist.store.users import LoginRefused, UserStore
from dealer_assist.web.auth import Account, LoginFailed
from dealer_assist.web.session import Standing

REFUSED = "Wrong name or password, or too many tries: wait a moment and try again."

_log = logging.getLogger("dealer_assist.login")


class UserAccounts:
    """`web.auth.Accounts` over the users file; one password check at a time."""

    def __init__(self, users: UserStore, throttle: LoginThrottle | None = None) -> None:
        self._users = users
        self._throttle = throttle or LoginThrottle()
        self._lock = threading.Lock()

    def login(self, name: str, password: str, client: str = "unknown") -> Account:
        wait = self._throttle.begin(client, name)
        if wait > 0:
            _log.warning("login throttled: name=%s client=%s wait=%.1fs", shown(name),
                         shown(client, quoted=False), wait)
            raise LoginFailed(REFUSED)
        with self._lock:
            try:
                user = self._users.verify(name, password)
            except LoginRefused as e:
                _log.warning("login failed: name=%s client=%s reason=%s", shown(name),
                             shown(client, quoted=False), e.reason)
                raise LoginFailed(REFUSED) from None
        self._throttle.succeeded(client, name)
        _log.info("login: name=%s role=%s client=%s", shown(user.name), user.role,
                  shown(client, quoted=False))
        return Account(user.name, user.role, user.language)

    def standing(self, name: str) -> Standing | None:
        """`name`'s open account as the users file holds it now (web/session.py)."""
        with self._lock:
            found = self._users.standing(name)
        return Standing(*found) if found else None

    def set_language(self, name: str, language: str) -> None:
        """The account's console language from now on (kept in the users file)."""
        with self._lock:
            self._users.set_language(name, language)
        _log.info("console language: name=%s language=%s", shown(name), language)


class TableSessionRecords:
    """The table's `SessionRecords` (web/session.py): accounts in the users file, logouts in
    the table's `SessionEnds` file."""

    def __init__(self, accounts: UserAccounts, ends: SessionEnds) -> None:
        self._accounts = accounts
        self._ends = ends

    def standing(self, name: str, session_id: str) -> Standing | None:
        if self._ends.ended(session_id):
            return None
        return self._accounts.standing(name)

    def end(self, session_id: str, until: float) -> None:
        self._ends.end(session_id, until)
