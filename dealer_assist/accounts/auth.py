"""Who is at the screen, for both web apps: sessions, roles, CSRF tokens and the Origin check.

- `Accounts` (accounts/login.py) checks a password over the app's user store, behind a
  throttle that slows repeated failures by client and by account; there is no lockout anyone
  could turn against staff.
- A login makes a session, in a cookie that is HttpOnly and SameSite=Strict (and Secure behind
  HTTPS). Signed sessions (accounts/session.py) hold the whole session in the cookie: it
  outlives a restart, and ends on logout, after `ttl` without a request, or when the account's
  password or role changes. `Sessions` keeps them in memory instead, by a random token (tests,
  and an app built without a key): they end on logout, after `ttl`, or when the process stops.
- Every form carries the session's CSRF token, checked on every POST. The login form, before
  any session, uses a double-submit token: a cookie and a form field that must match.
- A request that changes something (any method but GET, HEAD and OPTIONS) whose `Origin`
  header names another site than the one it was sent to is refused (`cross_site`), before
  any route: a second wall behind the CSRF tokens and SameSite cookies. Requests without an
  `Origin` (command-line clients) are left to the CSRF check.
- `require(*roles)` guards a route: no session -> 401 (a page GET is sent to the login page),
  a session of another role -> 403.
"""

from __future__ import annotations

import hmac
import secrets
import threading
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from urllib.parse import quote, urlsplit

from fastapi import Request, Response
from fastapi.responses import RedirectResponse

from dealer_assist.accounts.users import Account

SESSION_COOKIE = "da_session"
LOGIN_COOKIE = "da_login"


@dataclass
class Session:
    token: str
    account: Account
    csrf: str
    expires: float = field(default=0.0)
    #: A new cookie for the same session, its last use moved on (signed sessions), to be set
    #: on the answer (`renew_cookie`).
    renewed: str | None = None


class Sessions:
    """Sessions in memory, by token; each request moves the idle expiry on."""

    def __init__(self, ttl_s: float, clock: Callable[[], float] | None = None) -> None:
        self.ttl_s = ttl_s
        self._clock = clock or time.monotonic
        self._by_token: dict[str, Session] = {}
        self._lock = threading.Lock()

    def create(self, account: Account) -> Session:
        session = Session(secrets.token_urlsafe(32), account, secrets.token_urlsafe(32),
                          self._clock() + self.ttl_s)
        with self._lock:
            self._by_token[session.token] = session
        return session

    def get(self, token: str | None) -> Session | None:
        if not token:
            return None
        now = self._clock()
        with self._lock:
            session = self._by_token.get(token)
            if session is None:
                return None
            if session.expires < now:
                del self._by_token[token]
                return None
            session.expires = now + self.ttl_s
            return session

    def drop(self, token: str | None) -> None:
        with self._lock:
            self._by_token.pop(token or "", None)


class LoginRequired(Exception):
    """No session: a page is sent to the login form, anything else gets 401."""

    def __init__(self, page: bool, next_path: str) -> None:
        super().__init__("log in first")
        self.page = page
        self.next_path = next_path


class Forbidden(Exception):
    """A session whose role may not use the route (403), or a bad CSRF token."""

    def __init__(self, message: str) -> None:
        super().__init__(message)


def current_session(request: Request) -> Session | None:
    """The request's session, looked up once per request (signed sessions ask the accounts'
    store: its errors, such as a store that does not answer, go to the caller)."""
    found: tuple[Session | None] | None = getattr(request.state, "session_found", None)
    if found is not None:
        return found[0]
    sessions: Sessions = request.app.state.sessions
    session = sessions.get(request.cookies.get(SESSION_COOKIE))
    request.state.session_found = (session,)
    if session is not None and session.renewed:
        request.state.renewed_session = session.renewed
    return session


def known_session(request: Request) -> Session | None:
    """The session this request has looked up already, else None (never a lookup: for the
    page that says the accounts' store does not answer)."""
    found: tuple[Session | None] | None = getattr(request.state, "session_found", None)
    return found[0] if found is not None else None


def renew_cookie(request: Request, response: Response) -> None:
    """Set the session's renewed cookie (its last use moved on) on `response`, unless the
    route set or dropped the session cookie itself (a login, a logout)."""
    renewed = getattr(request.state, "renewed_session", None)
    cookies = (v.decode("latin-1") for k, v in response.raw_headers if k == b"set-cookie")
    if not renewed or any(cookie.startswith(SESSION_COOKIE + "=") for cookie in cookies):
        return
    _session_cookie(request, response, renewed)


def _session_cookie(request: Request, response: Response, token: str) -> None:
    response.set_cookie(SESSION_COOKIE, token, httponly=True, samesite="strict",
                        secure=secure_cookies(request), path="/",
                        max_age=int(request.app.state.sessions.ttl_s))


def require(*roles: str, page: bool = False) -> Callable[[Request], Session]:
    """A dependency: the session of a user with one of `roles`, or LoginRequired / Forbidden."""

    def dependency(request: Request) -> Session:
        session = current_session(request)
        if session is None:
            path = request.url.path + (f"?{request.url.query}" if request.url.query else "")
            raise LoginRequired(page and request.method == "GET", path)
        if session.account.role not in roles:
            raise Forbidden(f"{session.account.name} is a {session.account.role}: this page is "
                            f"for {' or '.join(r + 's' for r in roles)} only")
        return session

    return dependency


def check_csrf(expected: str | None, given: str | None) -> None:
    """Forbidden unless `given` is the token `expected` (compared as bytes, in constant time:
    any text a form sends is compared, not only ASCII)."""
    if not expected or not given or not hmac.compare_digest(
            expected.encode("utf-8", "surrogatepass"), given.encode("utf-8", "surrogatepass")):
        raise Forbidden("the form's security token is missing or out of date: reload the page")


def login_url(next_path: str) -> str:
    return "/login?next=" + quote(next_path, safe="/")


def safe_next(next_path: str | None, home: str) -> str:
    """Where to go after login: a local path only (never another site), else `home`."""
    if next_path and next_path.startswith("/") and not next_path.startswith("//") \
            and "\\" not in next_path and not next_path.startswith("/login"):
        return next_path
    return home


SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})


def cross_site(request: Request) -> str | None:
    """Why a state-changing request must be refused for its `Origin`, or None if it may go on.

    The origin's host and port must be the `Host` the request was sent to (behind the TLS
    proxy both are the public name; the scheme is the proxy's business)."""
    if request.method in SAFE_METHODS:
        return None
    origin = request.headers.get("origin")
    if origin is None:
        return None
    host = request.headers.get("host", "")
    try:
        given = urlsplit(origin).netloc
    except ValueError:
        given = ""
    if origin == "null" or not given or given.lower() != host.lower():
        return f"this form was sent from another site ({origin[:100]}), not from {host[:100]}"
    return None


def secure_cookies(request: Request) -> bool:
    """Whether the app's cookies are marked Secure (behind HTTPS)."""
    return bool(request.app.state.settings.secure_cookies)


def signed_in(request: Request, account: Account, to: str) -> RedirectResponse:
    """After a good password: a new session, its cookie set, the login form's cookie dropped,
    and a redirect to `to` (the table's console and the floor service alike)."""
    session = request.app.state.sessions.create(account)
    response = RedirectResponse(to, status_code=303)
    _session_cookie(request, response, session.token)
    response.delete_cookie(LOGIN_COOKIE, path="/login")
    return response


def signed_out(request: Request, session: Session, csrf: str) -> RedirectResponse:
    """Logout: the session dropped (after its CSRF token checks), back to the login form."""
    check_csrf(session.csrf, csrf)
    request.app.state.sessions.drop(session.token)
    request.state.renewed_session = None
    request.state.session_found = (None,)
    response = RedirectResponse("/login", status_code=303)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return response
