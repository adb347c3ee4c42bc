"""Signed sessions: a login that outlives a restart of the service, and ends when it should.

The browser holds the whole session in its cookie (`da_session`), HttpOnly, SameSite=Strict:

    v1.<payload>.<mac>    payload = base64url(JSON {"s": session id, "u": user, "r": role,
                                                    "i": issued, "t": last use, "k": stamp})
                          mac = base64url(HMAC-SHA256(key, PURPOSE + payload))

The key is the service's own (32 bytes or more, never in the web root): the table derives it
from its signing key (store/sessions.py) or keeps it in a 0600 file in its state folder, the
floor service reads it from a 0600 file (`key_file`; docs/service.md). Nothing lives in the
process's memory, so a restart logs no one out; what ends a session is kept where a restart
keeps it:

- **logout**: the session id is recorded as ended (`SessionRecords.end`), until the time its
  cookie would have died anyway;
- **the time-out**: a session unused for `ttl_s` is refused (the last use travels in the
  cookie, renewed at most once a minute: `Session.renewed`, set as a new cookie by the app);
- **a changed account**: the stamp is a MAC of the account's role and password hash, so a new
  password (or a new hash of it), a new role, a disabled or removed account ends its sessions.

The CSRF token of a session is a MAC of its id: the same after a restart, another per session.
A cookie with a bad MAC, another user or role written in, or text that is no token at all is
no session (None), never an error.
"""

from __future__ import annotations

import base64
import binascii
import json
import os
import secrets
import stat
import time
from collections.abc import Callable
from pathlib import Path
from typing import NamedTuple, Protocol

from cryptography.exceptions import InvalidSignature
from cryptography.hazmat.primitives import hashes, hmac

from dealer_assist.accounts.auth import Session
from dealer_assist.accounts.users import Account, Standing

PURPOSE = b"dealer-assist session v1\n"
VERSION = "v1"
#: A key's least length in bytes.
KEY_SIZE = 32
#: The last use in a cookie is renewed at most this often (seconds; less for a short ttl).
RENEW_S = 60.0
#: Clocks may disagree this much (seconds) before a cookie's times count as from the future.
SKEW_S = 300.0
#: A token longer than this is not read (a cookie holds 4 KB at most).
MAX_TOKEN = 2048


class SessionRecords(Protocol):
    """Where a session's account and its end are kept (accounts/login.py's `Accounts`, over
    the table's users file or the floor's store)."""

    def standing(self, name: str, session_id: str) -> Standing | None:
        """`name`'s open account; None when there is none (unknown, disabled) or the session
        `session_id` was ended."""
        ...

    def end(self, session_id: str, until: float) -> None:
        """Record the session as ended; the record may go after `until` (a Unix time)."""
        ...


class Fields(NamedTuple):
    """What a cookie says: the session id, user, role, issue and last-use times (Unix
    seconds) and the account's stamp."""

    s: str
    u: str
    r: str
    i: int
    t: int
    k: str


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class SignedSessions:
    """Sessions in signed cookies (the same methods as auth.Sessions, kept in memory)."""

    def __init__(self, key: bytes, records: SessionRecords, ttl_s: float,
                 clock: Callable[[], float] | None = None) -> None:
        if len(key) < KEY_SIZE:
            raise ValueError(f"a session key has {KEY_SIZE} bytes at least")
        self._key = key
        self._records = records
        self.ttl_s = ttl_s
        self._clock = clock or time.time
        self._renew_s = min(RENEW_S, ttl_s / 4)

    def create(self, account: Account) -> Session:
        """A new session of `account` (just logged in)."""
        # an account removed since its password was checked: a cookie that no `get` takes
        standing = self._records.standing(account.name, "") or Standing(account.role, "en", "")
        now = self._clock()
        fields = Fields(secrets.token_urlsafe(18), account.name, standing.role, int(now),
                        int(now), self._stamp(account.name, standing))
        account = Account(account.name, standing.role, standing.language)
        return Session(self._sign(fields), account, self._csrf(fields.s), now + self.ttl_s)

    def get(self, token: str | None) -> Session | None:
        """The session `token` stands for, if it is signed, in time, not ended and its account
        unchanged; its `renewed` token carries a later last use."""
        fields = self._read(token)
        if fields is None:
            return None
        now = self._clock()
        seen = fields.t
        if now - seen > self.ttl_s or seen > now + SKEW_S or fields.i > seen:
            return None
        standing = self._records.standing(fields.u, fields.s)
        if standing is None or standing.role != fields.r \
                or not _equal(self._stamp(fields.u, standing), fields.k):
            return None
        session = Session(str(token), Account(fields.u, standing.role, standing.language),
                          self._csrf(fields.s), seen + self.ttl_s)
        if now - seen >= self._renew_s:
            session.renewed = self._sign(fields._replace(t=int(now)))
            session.expires = now + self.ttl_s
        return session

    def drop(self, token: str | None) -> None:
        """End the session for good (logout): recorded, so a restart does not bring it back."""
        fields = self._read(token)
        if fields is not None:
            self._records.end(fields.s, fields.t + self.ttl_s + SKEW_S)

    def _sign(self, fields: Fields) -> str:
        payload = _b64(json.dumps(fields._asdict(), separators=(",", ":"), ensure_ascii=True).encode())
        return f"{VERSION}.{payload}.{_b64(self._mac(payload.encode()).finalize())}"

    def _read(self, token: str | None) -> Fields | None:
        """The fields of a well-formed token whose MAC holds; else None."""
        if not token or len(token) > MAX_TOKEN:
            return None
        parts = token.split(".")
        if len(parts) != 3 or parts[0] != VERSION:
            return None
        try:
            payload = parts[1].encode("ascii")
            self._mac(payload).verify(_unb64(parts[2]))
            fields = json.loads(_unb64(parts[1]))
        except (UnicodeEncodeError, binascii.Error, ValueError, InvalidSignature):
            return None
        return Fields(**fields) if _well_formed(fields) else None

    def _mac(self, payload: bytes) -> hmac.HMAC:
        mac = hmac.HMAC(self._key, hashes.SHA256())
        mac.update(PURPOSE + payload)
        return mac

    def _derived(self, label: str, *parts: str) -> str:
        mac = hmac.HMAC(self._key, hashes.SHA256())
        mac.update(f"{label}\n".encode() + "\n".join(parts).encode("utf-8", "surrogatepass"))
        return _b64(mac.finalize())

    def _csrf(self, session_id: str) -> str:
        return self._derived("csrf", session_id)

    def _stamp(self, name: str, standing: Standing) -> str:
        return self._derived("account", name, standing.role, standing.secret)[:22]


def _equal(a: str, b: str) -> bool:
    """Two stamps compared in constant time."""
    return secrets.compare_digest(a.encode("utf-8", "surrogatepass"),
                                  b.encode("utf-8", "surrogatepass"))


def _well_formed(fields: object) -> bool:
    if not isinstance(fields, dict) or set(fields) != set(Fields._fields):
        return False
    texts = all(isinstance(fields[k], str) for k in ("s", "u", "r", "k"))
    times = all(type(fields[k]) is int for k in ("i", "t"))
    return texts and times


class SessionKeyProblem(ValueError):
    """A session key file that others may read, or that is too short; the message says what."""


def key_file(path: Path) -> bytes:
    """The key in `path` (made, 0600, with a random key when there is none yet). Refused
    (SessionKeyProblem) when its group or others may read it, or it holds under KEY_SIZE
    bytes: a key file others may read is refused, never widened."""
    path = Path(path)
    try:
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except FileExistsError:
        pass
    else:
        with os.fdopen(fd, "wb") as out:
            out.write(secrets.token_bytes(KEY_SIZE))
            out.flush()
            os.fsync(out.fileno())
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise SessionKeyProblem(f"the session key file {path} may be read by others "
                                f"(mode {stat.S_IMODE(mode):04o}): chmod 600 it")
    key = path.read_bytes()
    if len(key) < KEY_SIZE:
        raise SessionKeyProblem(f"the session key file {path} holds {len(key)} bytes, not "
                                f"{KEY_SIZE} or more")
    return key
