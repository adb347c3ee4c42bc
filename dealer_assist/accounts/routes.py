"""The front door's routes, one router both web apps mount: `front_door(roles, landing, pages)`.

    GET /login                 public   the login form (a signed-in visitor goes on to `next`)
    POST /login                public   a login: a new session, then `next` or the role's home
    POST /logout               any user the session ended (after its CSRF token checks)
    POST /account/language     any user the account's pages' language, kept with the account
                                        (`Accounts.set_language`) and the session's at once

The login form carries a double-submit CSRF token (a cookie and a field that must match); the
session cookie is HttpOnly, SameSite=Strict (Secure behind HTTPS): accounts/auth.py. The form
that chooses a language is in every page's header (page.html) once this router is mounted;
`?lang=` on any page previews a language without keeping it. `landing(next, role)` says where
a login or a language choice goes on to (a local path only, never another site).
"""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from dataclasses import replace

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from dealer_assist.accounts.auth import (
    LOGIN_COOKIE,
    Session,
    check_csrf,
    current_session,
    require,
    secure_cookies,
    signed_in,
    signed_out,
)
from dealer_assist.accounts.login import Accounts, LoginFailed
from dealer_assist.accounts.pages import Pages
from dealer_assist.accounts.users import UserError
from dealer_assist.config import languages

LANGUAGE_PATH = "/account/language"
#: Where a login goes on to: (the `next` asked for, the account's role) -> a local path.
Landing = Callable[[str, str], str]


def _accounts(request: Request) -> Accounts:
    accounts: Accounts = request.app.state.accounts
    return accounts


def _login_form(pages: Pages, request: Request, next_path: str, error: str | None = None,
                name: str = "", status: int = 200) -> HTMLResponse:
    token = secrets.token_urlsafe(24)
    response = pages.render(request, "login.html", status=status, token=token,
                            next_path=next_path[:500], error=error, name=name[:64])
    response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict",
                        secure=secure_cookies(request), path="/login", max_age=3600)
    return response


def keep_language(request: Request, session: Session, csrf: str, lang: str,
                  pages: Pages) -> Response | None:
    """Keep the language `lang` names for the session's account and the session: None when
    kept, else the page that says why not (an unknown language, an account the store
    refuses: 400)."""
    check_csrf(session.csrf, csrf)
    try:
        chosen = languages.language(lang[:40])
    except languages.UnknownLanguage as e:
        return pages.message(request, "Bad request", str(e), session, 400)
    try:
        _accounts(request).set_language(session.account.name, chosen)
    except UserError as e:
        return pages.message(request, "Bad request", str(e), session, 400)
    session.account = replace(session.account, language=chosen)
    return None


def front_door(roles: Sequence[str], landing: Landing, pages: Pages) -> APIRouter:
    """The login, logout and language routes of an app whose users have `roles`."""
    router = APIRouter()
    signed_in_user = Depends(require(*roles))

    @router.get("/login")
    def login_form(request: Request, next: str = "") -> Response:
        session = current_session(request)
        if session is not None:
            return RedirectResponse(landing(next, session.account.role), status_code=303)
        return _login_form(pages, request, next)

    @router.post("/login")
    def login(request: Request, name: str = Form(""), password: str = Form(""),
              csrf: str = Form(""), next: str = Form("")) -> Response:
        check_csrf(request.cookies.get(LOGIN_COOKIE), csrf)
        try:
            client = request.client.host if request.client else "unknown"
            account = _accounts(request).login(name.strip(), password, client)
        except LoginFailed as e:
            return _login_form(pages, request, next, str(e), name, status=401)
        return signed_in(request, account, landing(next, account.role))

    @router.post("/logout")
    def logout(request: Request, session: Session = signed_in_user,
               csrf: str = Form("")) -> Response:
        return signed_out(request, session, csrf)

    @router.post(LANGUAGE_PATH)
    def choose_language(request: Request, session: Session = signed_in_user,
                        csrf: str = Form(""), lang: str = Form(""),
                        next: str = Form("")) -> Response:
        refused = keep_language(request, session, csrf, lang, pages)
        return refused or RedirectResponse(landing(next, session.account.role), status_code=303)

    return router
