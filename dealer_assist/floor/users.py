"""The people who log in to the floor service: supervisors, surveillance, regulators.

They live in the central store (`floor_users`, migration 5) with argon2 password hashes, as
the table's users do in their file (store/users.py): one account serves the whole floor. Only
the floor service's group (`floor_service`) and the store's owner may read the table: no table
role and no plain reader has a grant on it. There is no lockout (a weapon against staff):
repeated failures are slowed down before the password is checked
(services/login_throttle.py, in floor/web/accounts.py), and the person at the screen reads one answer for every kind of
refusal, while the operator's log tells them apart.
"""

from __future__ import annotations

import psycopg
from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from dealer_assist.store.users import MIN_PASSWORD_LENGTH, NAME_PATTERN, UserError

ROLES = ("supervisor", "surveillance", "regulator")


def add_user(conn: psycopg.Connection, name: str, role: str, password: str,
             hasher: PasswordHasher | None = None) -> None:
    """A new floor user; UserError says why one is refused (name, role, password, taken)."""
    if not NAME_PATTERN.fullmatch(name):
        raise UserError(f"user name {name!r}: letters, digits, '.', '_' or '-', at most 64, "
                        "starting with a letter or digit")
    if role not in ROLES:
        raise UserError(f"role {role!r}: one of {', '.join(ROLES)}")
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(f"a password has at least {MIN_PASSWORD_LENGTH} characters")
    if password.strip().casefold() == name.casefold():
        raise UserError("a password must not be the user's name")
    digest = (hasher or PasswordHasher()).hash(password)
    try:
        with conn.transaction():
            conn.execute("INSERT INTO floor_users (name, role, password_hash) VALUES (%s, %s, %s)",
                         (name, role, digest))
    except psycopg.errors.UniqueViolation:
        raise UserError(f"user {name!r} exists already") from None


def check_login(conn: psycopg.Connection, name: str, password: str, hasher: PasswordHasher,
                dummy: str) -> tuple[str | None, str]:
    """(role, "ok") when `password` is `name`'s and the account is open; else (None, why:
    unknown_user, wrong_password, disabled). `dummy`: a hash to check an unknown name against,
    so that it costs the same work as a real one."""
    row = conn.execute("SELECT role, password_hash, disabled FROM floor_users WHERE name = %s",
                       (name[:64],)).fetchone()
    if row is None:
        _matches(hasher, dummy, password)
        return None, "unknown_user"
    role, digest, disabled = row
    if not _matches(hasher, digest, password):
        conn.execute("UPDATE floor_users SET failed_logins = failed_logins + 1 WHERE name = %s",
                     (name,))
        return None, "wrong_password"
    if disabled:
        return None, "disabled"
    new = hasher.hash(password) if hasher.check_needs_rehash(digest) else digest
    conn.execute("UPDATE floor_users SET failed_logins = 0, password_hash = %s WHERE name = %s",
                 (new, name))
    return str(role), "ok"


def _matches(hasher: PasswordHasher, digest: str, password: str) -> bool:
    try:
        return hasher.verify(digest, password)
    except (VerificationError, InvalidHashError):
        return False
