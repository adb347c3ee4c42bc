"""`web.auth.Accounts` over the floor's users (`floor_users`), behind the login throttle, and
the floor's signed sessions' records (web/session.py: the account now, logouts kept in
`floor_sessions_ended`).

The same answer for every refusal at the screen (dealer_assist.login.REFUSED); the operator's
log (`dealer_assist.login`) says which it was, with the name (cut short, control characters
escaped) and the client's address. As at the table, the throttle reserves each try before its
password is checked, so tries sent at once all count (services/login_throttle.py).
"""

from __future__ import annotations

import logging
import threading

from argon2 import PasswordHasher
from psycopg_pool import ConnectionPool

from dealer_assist.floor.users import check_login, end_session, session_standing, set_language
from dealer_assist.login import REFUSED
from dealer_assist.services.login_throttle import LoginThrottle, shown
from dealer_assist.web.auth import Account, LoginFailed
from dealer_assist.web.session import Standing

_log = logging.getLogger("dealer_assist.login")


class FloorAccounts:
    """The floor service's logins; one password check at a time."""

    def __init__(self, pool: ConnectionPool, throttle: LoginThrottle | None = None,
                 hasher: PasswordHasher | None = None) -> None:
        self._pool = pool
        self._throttle = throttle or LoginThrottle()
        self._hasher = hasher or PasswordHasher()
        self._dummy = self._hasher.hash("not anybody's password")
        self._lock = threading.Lock()

    def login(self, name: str, password: str, client: str = "unknown") -> Account:
        wait = self._throttle.begin(client, name)
        if wait > 0:
            _log.warning("floor login throttled: name=%s client=%s wait=%.1fs", shown(name),
                         shown(client, quoted=False), wait)
            raise LoginFailed(REFUSED)
        with self._lock, self._pool.connection() as conn:
            found = check_login(conn, name, password, self._hasher, self._dummy)
        if found.role is None:
            _log.warning("floor login failed: name=%s client=%s reason=%s", shown(name),
                         shown(client, quoted=False), found.reason)
            raise LoginFailed(REFUSED)
        self._throttle.succeeded(client, name)
        _log.info("floor login: name=%s role=%s client=%s", shown(name), found.role,
                  shown(client, quoted=False))
        return Account(name, found.role, found.language)

    def standing(self, name: str, session_id: str) -> Standing | None:
        """`name`'s open account, unless the session was ended (web/session.py's records)."""
        with self._pool.connection() as conn:
            found = session_standing(conn, name, session_id)
        return Standing(*found) if found else None

    def end(self, session_id: str, until: float) -> None:
        """A logout: the session recorded as ended, in the central store."""
        with self._pool.connection() as conn:
            end_session(conn, session_id, until)

    def set_language(self, name: str, language: str) -> str:
        """Keep `name`'s page language (the header's chooser); UserError when unknown."""
        with self._pool.connection() as conn:
            return set_language(conn, name, language)
