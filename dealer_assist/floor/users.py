"""The people who log in to the floor service: supervisors, surveillance, regulators.

They live in the central store (`floor_users`, migration 5) with argon2 password hashes, as
the table's users do in their file (store/users.py): one account serves the whole floor. Only
the floor service's group (`floor_service`) and the store's owner may read the table: no table
role and no plain reader has a grant on it. There is no lockout (a weapon against staff):
repeated failures are slowed down before the password is checked
(accounts/throttle.py, in accounts/login.py), and the person at the screen reads one answer
for every kind of refusal, while the operator's log tells them apart.

`FloorUsers` is the floor's `accounts.users.UserStore` (what the front door asks), over a
connection pool on the central store; the functions below it take one connection.
"""

from __future__ import annotations

from typing import NamedTuple

import psycopg
from argon2 import PasswordHasher
from psycopg_pool import ConnectionPool

from dealer_assist import i18n
from dealer_assist.accounts import users as rules
from dealer_assist.accounts.users import NAME_PATTERN, Account, LoginRefused, Standing, UserError

ROLES = ("supervisor", "surveillance", "regulator")

#: The floor users' page language (a migration in floor/migrations.py): each user's pages speak
#: it unless `?lang=` previews another; the floor service may change it (the header's chooser).
LANGUAGE_SQL = """
ALTER TABLE floor_users ADD COLUMN language text NOT NULL DEFAULT 'en'
    CHECK (language IN ('en', 'th', 'zh_Hans', 'zh_Hant'));
GRANT UPDATE (language) ON floor_users TO floor_service;
"""


#: Migration 13 (floor/migrations.py): the floor service's sessions are signed cookies that
#: outlive its restart (accounts/session.py); a logout records its session here until the cookie
#: would have timed out anyway, so a restart does not bring it back.
SESSIONS_SQL = """
CREATE TABLE floor_sessions_ended (
    session_id text PRIMARY KEY CHECK (length(session_id) <= 64),
    until timestamptz NOT NULL
);
REVOKE ALL ON floor_sessions_ended FROM PUBLIC;
GRANT SELECT, INSERT, DELETE ON floor_sessions_ended TO floor_service;
"""


def session_standing(conn: psycopg.Connection, name: str, session_id: str) -> Standing | None:
    """`name`'s open account; None when there is none, it is disabled, or the session
    `session_id` was ended by a logout."""
    row = conn.execute(
        "SELECT role, language, password_hash FROM floor_users WHERE name = %s "
        "AND NOT disabled AND NOT EXISTS (SELECT 1 FROM floor_sessions_ended "
        "WHERE session_id = %s)", (name[:64], session_id[:64])).fetchone()
    return Standing(str(row[0]), str(row[1]), str(row[2])) if row else None


def end_session(conn: psycopg.Connection, session_id: str, until: float) -> None:
    """Record the session as ended until `until` (a Unix time); drop the records past theirs."""
    with conn.transaction():
        conn.execute("DELETE FROM floor_sessions_ended WHERE until < now()")
        conn.execute("INSERT INTO floor_sessions_ended (session_id, until) "
                     "VALUES (%s, to_timestamp(%s)) ON CONFLICT (session_id) DO NOTHING",
                     (session_id[:64], until))


class Login(NamedTuple):
    """What a login check found: the role and page language when it passed (role None when
    refused) and why (ok, unknown_user, wrong_password, disabled)."""

    role: str | None
    reason: str
    language: str = i18n.SOURCE


def add_user(conn: psycopg.Connection, name: str, role: str, password: str,
             hasher: PasswordHasher | None = None, language: str = i18n.SOURCE) -> None:
    """A new floor user whose pages speak `language` (en, th, zh-Hans, zh-Hant); UserError says
    why one is refused (name, role, password, language, taken)."""
    rules.check_new_user(name, role, password, ROLES)
    lang = rules.known_language(language)
    digest = (hasher or PasswordHasher()).hash(password)
    try:
        with conn.transaction():
            conn.execute("INSERT INTO floor_users (name, role, password_hash, language) "
                         "VALUES (%s, %s, %s, %s)", (name, role, digest, lang))
    except psycopg.errors.UniqueViolation:
        raise UserError(f"user {name!r} exists already") from None


def set_language(conn: psycopg.Connection, name: str, language: str) -> str:
    """Change `name`'s page language; the shipped language it is kept as. UserError when the
    user or the language is unknown."""
    lang = rules.known_language(language)
    with conn.transaction():
        found = conn.execute("UPDATE floor_users SET language = %s WHERE name = %s",
                             (lang, name[:64])).rowcount
    if not found:
        raise UserError(f"no floor user {name[:64]!r}")
    return lang


def check_login(conn: psycopg.Connection, name: str, password: str, hasher: PasswordHasher,
                dummy: str) -> Login:
    """Login(role, "ok", language) when `password` is `name`'s and the account is open; else
    Login(None, why). `dummy`: a hash to check an unknown name against, so that it costs the
    same work as a real one. A name no user can have (NAME_PATTERN: no NUL, at most 64
    characters) is not looked up: it is an unknown name."""
    valid = NAME_PATTERN.fullmatch(name) is not None
    row = conn.execute("SELECT role, password_hash, disabled, language FROM floor_users "
                       "WHERE name = %s", (name,)).fetchone() if valid else None
    if row is None:
        rules.password_matches(hasher, dummy, password)
        return Login(None, "unknown_user")
    role, digest, disabled, language = row
    if not rules.password_matches(hasher, digest, password):
        conn.execute("UPDATE floor_users SET failed_logins = failed_logins + 1 WHERE name = %s",
                     (name,))
        return Login(None, "wrong_password")
    if disabled:
        return Login(None, "disabled")
    new = hasher.hash(password) if hasher.check_needs_rehash(digest) else digest
    conn.execute("UPDATE floor_users SET failed_logins = 0, password_hash = %s WHERE name = %s",
                 (new, name))
    return Login(str(role), "ok", str(language))


class FloorUsers:
    """The floor's users (`floor_users`) and ended sessions (`floor_sessions_ended`) over
    `pool`: the front door's `UserStore` (accounts/users.py)."""

    def __init__(self, pool: ConnectionPool, hasher: PasswordHasher | None = None) -> None:
        self._pool = pool
        self._hasher = hasher or PasswordHasher()
        self._dummy = self._hasher.hash("not anybody's password")

    def verify(self, name: str, password: str) -> Account:
        with self._pool.connection() as conn:
            found = check_login(conn, name, password, self._hasher, self._dummy)
        if found.role is None:
            raise LoginRefused(name, found.reason)
        return Account(name, found.role, found.language)

    def standing(self, name: str, session_id: str) -> Standing | None:
        with self._pool.connection() as conn:
            return session_standing(conn, name, session_id)

    def end_session(self, session_id: str, until: float) -> None:
        with self._pool.connection() as conn:
            end_session(conn, session_id, until)

    def set_language(self, name: str, language: str) -> str:
        with self._pool.connection() as conn:
            return set_language(conn, name, language)
