"""The people who log in: dealers, supervisors and regulators, with argon2 password hashes.

Users live in their own SQLite file (`users.db`, one per site; the service's config names
it), not in a table's event log: the log is append-only with one writer per table, while a
user's failed-login count and lock change all the time, and one account serves every table.
The file holds one table, `users(name, role, password_hash, disabled, failed_logins,
created_at, language)`, and `PRAGMA user_version` 3 (older files are upgraded when opened:
version 1 had a `locked_until` column, version 2 had no `language`, the account's console
language, which becomes English).

There is no default password and no default user: the first supervisor is created with
`dealer-assist user add NAME --role supervisor`. There is no lockout: a lock that anyone
could trigger with wrong passwords would be a weapon against staff. Repeated failures are
slowed down before the password is checked (`accounts.throttle`); `failed_logins`
counts wrong passwords in a row for the operator, and a right password clears it.

`TableUsers` is what the front door (dealer_assist.accounts) asks of a table: this file, and
the sessions ended by a logout in the table's own file (store/sessions.py).
"""

from __future__ import annotations

import sqlite3
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from argon2 import PasswordHasher

from dealer_assist.accounts.users import (
    NAME_PATTERN,
    Account,
    LoginRefused,
    Standing,
    UserError,
    check_new_user,
    check_password,
    known_language,
    password_matches,
)
from dealer_assist.store.chain import utc_now, utc_stamp
from dealer_assist.store.log import Clock
from dealer_assist.store.sessions import SessionEnds

ROLES = ("dealer", "supervisor", "regulator")
SCHEMA_VERSION = 3

_SCHEMA = f"""
CREATE TABLE users (
    name TEXT PRIMARY KEY NOT NULL,
    role TEXT NOT NULL CHECK (role IN ({", ".join(repr(r) for r in ROLES)})),
    password_hash TEXT NOT NULL,
    disabled INTEGER NOT NULL DEFAULT 0,
    failed_logins INTEGER NOT NULL DEFAULT 0,
    created_at TEXT NOT NULL,
    language TEXT NOT NULL DEFAULT 'en'
)
"""
_COLUMNS = "name, role, disabled, failed_logins, created_at, language"


@dataclass(frozen=True)
class User:
    name: str
    role: str
    disabled: bool
    failed_logins: int
    created_at: str
    #: The console's language (`en`, `th`, `zh_Hans`, `zh_Hant`).
    language: str = "en"


class UserStore:
    """The users file. `clock` and `hasher` can be given (tests use a cheap hasher)."""

    def __init__(
        self, path: str | Path, *, clock: Clock = utc_now, hasher: PasswordHasher | None = None
    ) -> None:
        self.path = Path(path)
        if not self.path.parent.is_dir():
            raise FileNotFoundError(f"no folder {self.path.parent} for the users file")
        self._clock = clock
        self._hasher = hasher or PasswordHasher()
        self._dummy_hash: str | None = None
        self._conn = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        try:
            self._ensure_schema()
            self._conn.execute("PRAGMA journal_mode=WAL")
            self._conn.execute("PRAGMA synchronous=FULL")
        except BaseException:
            self._conn.close()
            raise

    def add(self, name: str, role: str, password: str, language: str = "en") -> User:
        """A new user; refuses a bad name, an unknown role or language, a short password, a
        taken name."""
        check_new_user(name, role, password, ROLES)
        lang = known_language(language)
        digest = self._hasher.hash(password)
        try:
            self._conn.execute(
                "INSERT INTO users (name, role, password_hash, created_at, language) "
                "VALUES (?, ?, ?, ?, ?)",
                (name, role, digest, utc_stamp(self._clock()), lang),
            )
        except sqlite3.IntegrityError:
            raise UserError(f"user {name!r} exists already") from None
        return self._require(name)

    def get(self, name: str) -> User | None:
        row = self._conn.execute(f"SELECT {_COLUMNS} FROM users WHERE name = ?", (name,)).fetchone()
        return _user(row) if row else None

    def standing(self, name: str) -> tuple[str, str, str] | None:
        """An open account's role, language and password hash (what a signed session is
        checked against, accounts/session.py); None when there is none or it is disabled."""
        row = self._conn.execute("SELECT role, language, password_hash FROM users "
                                 "WHERE name = ? AND disabled = 0", (name,)).fetchone()
        return (str(row[0]), str(row[1]), str(row[2])) if row else None

    def all(self) -> list[User]:
        rows = self._conn.execute(f"SELECT {_COLUMNS} FROM users ORDER BY name").fetchall()
        return [_user(row) for row in rows]

    def verify(self, name: str, password: str) -> User:
        """The user, if `password` is theirs and the account is open; else `LoginRefused`.
        A name no user can have (NAME_PATTERN) is an unknown name, after the same work."""
        if not NAME_PATTERN.fullmatch(name):
            self._matches(self._dummy(), password)
            raise LoginRefused(name, "unknown_user")
        self._conn.execute("BEGIN IMMEDIATE")
        try:
            user, refusal = self._attempt(name, password)
            self._conn.execute("COMMIT")
        except BaseException:
            self._conn.execute("ROLLBACK")
            raise
        if refusal is not None:
            raise refusal
        assert user is not None
        return user

    def _attempt(self, name: str, password: str) -> tuple[User | None, LoginRefused | None]:
        row = self._conn.execute(
            "SELECT password_hash, disabled FROM users WHERE name = ?", (name,)).fetchone()
        if row is None:
            self._matches(self._dummy(), password)  # the same work as for a real name
            return None, LoginRefused(name, "unknown_user")
        digest, disabled = row
        if not self._matches(digest, password):
            self._conn.execute(
                "UPDATE users SET failed_logins = failed_logins + 1 WHERE name = ?", (name,))
            return None, LoginRefused(name, "wrong_password")
        if disabled:
            return None, LoginRefused(name, "disabled")
        new_hash = self._hasher.hash(password) if self._hasher.check_needs_rehash(digest) else digest
        self._conn.execute(
            "UPDATE users SET failed_logins = 0, password_hash = ? WHERE name = ?",
            (new_hash, name))
        return self._require(name), None

    def set_password(self, name: str, password: str) -> User:
        """A new password; it also clears the count of wrong passwords."""
        check_password(name, password)
        self._change(name, "password_hash = ?, failed_logins = 0",
                     self._hasher.hash(password))
        return self._require(name)

    def set_language(self, name: str, language: str) -> User:
        """The account's console language from now on."""
        self._change(name, "language = ?", known_language(language))
        return self._require(name)

    def disable(self, name: str) -> User:
        self._change(name, "disabled = ?", 1)
        return self._require(name)

    def enable(self, name: str) -> User:
        self._change(name, "disabled = ?", 0)
        return self._require(name)

    def close(self) -> None:
        self._conn.close()

    def __enter__(self) -> UserStore:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def _change(self, name: str, assignments: str, value: object) -> None:
        cursor = self._conn.execute(f"UPDATE users SET {assignments} WHERE name = ?",
                                    (value, name))
        if cursor.rowcount == 0:
            raise UserError(f"no user {name!r}")

    def _require(self, name: str) -> User:
        user = self.get(name)
        if user is None:
            raise UserError(f"no user {name!r}")
        return user

    def _matches(self, digest: str, password: str) -> bool:
        return password_matches(self._hasher, digest, password)

    def _dummy(self) -> str:
        if self._dummy_hash is None:
            self._dummy_hash = self._hasher.hash("not anybody's password")
        return self._dummy_hash

    def _ensure_schema(self) -> None:
        try:
            version = self._conn.execute("PRAGMA user_version").fetchone()[0]
            tables = [r[0] for r in self._conn.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table' ORDER BY name")]
        except sqlite3.DatabaseError as exc:
            raise UserError(f"{self.path} is not a users file: {exc}") from exc
        if version == SCHEMA_VERSION and tables == ["users"]:
            return
        if version in (1, 2) and tables == ["users"]:
            self._conn.execute("BEGIN IMMEDIATE")
            if version == 1:  # the lockout's column goes
                self._conn.execute("ALTER TABLE users DROP COLUMN locked_until")
            self._conn.execute("ALTER TABLE users ADD COLUMN language TEXT NOT NULL DEFAULT 'en'")
            self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
            self._conn.execute("COMMIT")
            return
        if version != 0 or tables:
            raise UserError(f"{self.path} is not a users file (tables: {', '.join(tables)})")
        self._conn.execute("BEGIN IMMEDIATE")
        self._conn.execute(_SCHEMA)
        self._conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION}")
        self._conn.execute("COMMIT")


def _user(row: tuple[Any, ...]) -> User:
    name, role, disabled, failed, created_at, language = row
    return User(name, role, bool(disabled), failed, created_at, language)


class TableUsers:
    """A table's `accounts.users.UserStore`: the users file, and the sessions ended by a
    logout in the table's `SessionEnds` (none: sessions kept in memory end with the process).
    One call at a time on the file's connection."""

    def __init__(self, users: UserStore, ends: SessionEnds | None = None) -> None:
        self.users = users
        self._ends = ends
        self._lock = threading.Lock()

    def verify(self, name: str, password: str) -> Account:
        with self._lock:
            user = self.users.verify(name, password)
        return Account(user.name, user.role, user.language)

    def standing(self, name: str, session_id: str) -> Standing | None:
        if self._ends is not None and self._ends.ended(session_id):
            return None
        with self._lock:
            found = self.users.standing(name)
        return Standing(*found) if found else None

    def end_session(self, session_id: str, until: float) -> None:
        if self._ends is not None:
            self._ends.end(session_id, until)

    def set_language(self, name: str, language: str) -> User:
        with self._lock:
            return self.users.set_language(name, language)
