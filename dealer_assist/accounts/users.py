"""The people who log in, as both web apps see them: an account, the rules every account
follows, and the port to wherever the accounts are kept.

`UserStore` is that port. Two stores implement it: the table's users file (SQLite, with the
table's own file of ended sessions: `store.users.TableUsers`) and the floor's `floor_users`
(PostgreSQL: `floor.users.FloorUsers`). Both hash passwords with argon2, count wrong
passwords in a row for the operator (`failed_logins`, cleared by a right one) and never lock an
account (a lock anyone could trigger would be a weapon against staff: the throttle slows
repeated failures instead, accounts/throttle.py).

The rules written once here: what a name may hold (`NAME_PATTERN`), how long a password is
(`check_new_user`), which languages an account may speak (`known_language`), and how a
password is checked without an exception escaping (`password_matches`).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from typing import NamedTuple, Protocol

from argon2 import PasswordHasher
from argon2.exceptions import InvalidHashError, VerificationError

from dealer_assist.config import languages

MIN_PASSWORD_LENGTH = 8
NAME_PATTERN = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,63}")


@dataclass(frozen=True)
class Account:
    name: str
    role: str
    #: The pages' language for this account (a shipped language, dealer_assist.i18n).
    language: str = "en"


class Standing(NamedTuple):
    """An open account as its store holds it now: a signed session is checked against it
    (accounts/session.py)."""

    role: str
    language: str
    #: Text that changes when the password does (its hash): a new one ends the sessions.
    secret: str


class UserError(ValueError):
    """A user that cannot be added or changed; the message says why."""


class LoginRefused(Exception):
    """A refused login. `reason`: unknown_user, wrong_password or disabled.

    Tell the person at the screen only that the name or password is wrong; `reason` is for
    the operator's log.
    """

    def __init__(self, name: str, reason: str) -> None:
        self.name, self.reason = name, reason
        super().__init__(f"login of {name[:64]!r} refused: {reason}")


class UserStore(Protocol):
    """Where the accounts are kept, as the front door (accounts/login.py) asks for them."""

    def verify(self, name: str, password: str) -> Account:
        """The account if `password` is `name`'s and the account is open; else LoginRefused
        (a name no account can have, NAME_PATTERN, after the same work as any other)."""
        ...

    def standing(self, name: str, session_id: str) -> Standing | None:
        """`name`'s open account as kept now; None when there is none (unknown, disabled) or
        the session `session_id` was ended by a logout."""
        ...

    def end_session(self, session_id: str, until: float) -> None:
        """Record the session as ended; the record may go after `until` (a Unix time)."""
        ...

    def set_language(self, name: str, language: str) -> object:
        """Keep `name`'s pages' language; UserError when the user or language is unknown."""
        ...


def check_new_user(name: str, role: str, password: str, roles: Sequence[str]) -> None:
    """UserError unless `name` is a name an account may have, `role` one of `roles` and
    `password` one an account may take."""
    if not NAME_PATTERN.fullmatch(name):
        raise UserError(f"user name {name!r}: letters, digits, '.', '_' or '-', at most 64, "
                        "starting with a letter or digit")
    if role not in roles:
        raise UserError(f"role {role!r}: one of {', '.join(roles)}")
    check_password(name, password)


def check_password(name: str, password: str) -> None:
    """UserError unless `password` is long enough and not `name` itself."""
    if len(password) < MIN_PASSWORD_LENGTH:
        raise UserError(f"a password has at least {MIN_PASSWORD_LENGTH} characters")
    if password.strip().casefold() == name.casefold():
        raise UserError("a password must not be the user's name")


def known_language(name: str) -> str:
    """The shipped language `name` names, as an account keeps it; UserError when none."""
    try:
        return languages.language(name)
    except languages.UnknownLanguage as e:
        raise UserError(str(e)) from None


def password_matches(hasher: PasswordHasher, digest: str, password: str) -> bool:
    """Whether `password` is the one `digest` was made from (False for a broken hash, or a
    password that is no text argon2 takes: a lone surrogate)."""
    try:
        return hasher.verify(digest, password)
    except (VerificationError, InvalidHashError, UnicodeEncodeError):
        return False
