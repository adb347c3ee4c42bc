"""Logins for both web apps: a user store behind the login throttle, every attempt logged.

`Accounts` is what an app's routes and its signed sessions ask (accounts/routes.py,
accounts/session.py's `SessionRecords`), over the app's `UserStore` (accounts/users.py: the
table's users file, the floor's `floor_users`). Before a password is checked the throttle
reserves the try, or says that this client and this account must wait (accounts/throttle.py:
growing delays, never a lockout); a try reserved counts as a failure unless the password was
right, so tries sent at once all count. A name no account can have (over 64 characters, a NUL
or another character names never hold) is refused as an unknown name, after the same work,
and counts too. A person at the screen reads one answer for an unknown name, a wrong
password, a disabled account and a throttled try, so the answer tells no one which names
exist; the operator's log tells them apart: every login, failure and throttle is a line on
the `dealer_assist.login` logger with the name (cut short, control characters escaped), the
client's address and the outcome (the floor's lines begin `floor login`).
"""

from __future__ import annotations

import logging
import threading

from dealer_assist.accounts.throttle import LoginThrottle, shown
from dealer_assist.accounts.users import Account, LoginRefused, Standing, UserStore

REFUSED = "Wrong name or password, or too many tries: wait a moment and try again."

_log = logging.getLogger("dealer_assist.login")


class LoginFailed(Exception):
    """A refused login: the message is what the person at the screen may read."""


class Accounts:
    """Logins over `users`, one password check at a time; `label` starts the log's lines
    (`"floor "` for the floor service)."""

    def __init__(self, users: UserStore, throttle: LoginThrottle | None = None,
                 label: str = "") -> None:
        self.users = users
        self._throttle = throttle or LoginThrottle()
        self._label = label
        self._lock = threading.Lock()

    def login(self, name: str, password: str, client: str = "unknown") -> Account:
        """The account if the password is right, the account open and `client` (the address
        the login came from) not made to wait; else LoginFailed."""
        said = self._label + "login"
        wait = self._throttle.begin(client, name)
        if wait > 0:
            _log.warning("%s throttled: name=%s client=%s wait=%.1fs", said, shown(name),
                         shown(client, quoted=False), wait)
            raise LoginFailed(REFUSED)
        with self._lock:
            try:
                account = self.users.verify(name, password)
            except LoginRefused as e:
                _log.warning("%s failed: name=%s client=%s reason=%s", said, shown(name),
                             shown(client, quoted=False), e.reason)
                raise LoginFailed(REFUSED) from None
        self._throttle.succeeded(client, name)
        _log.info("%s: name=%s role=%s client=%s", said, shown(account.name), account.role,
                  shown(client, quoted=False))
        return account

    def standing(self, name: str, session_id: str) -> Standing | None:
        """`name`'s open account, unless the session was ended (the signed sessions' records)."""
        return self.users.standing(name, session_id)

    def end(self, session_id: str, until: float) -> None:
        """A logout: the session recorded as ended where the store keeps it."""
        self.users.end_session(session_id, until)

    def set_language(self, name: str, language: str) -> None:
        """The account's pages' language from now on (UserError when it cannot be kept)."""
        self.users.set_language(name, language)
        _log.info("%sconsole language: name=%s language=%s", self._label, shown(name), language)
