"""The floor service's login, logout and page language: the table's auth model (web/auth.py)
with the floor's homes per role. A login form carries a double-submit CSRF token; a session
cookie is HttpOnly, SameSite=Strict (Secure behind HTTPS). `POST /account/language` (the
header's chooser, any floor user) keeps the user's language in `floor_users` and switches the
session at once, as the table's console does (web/language.py)."""

from __future__ import annotations

import secrets
from typing import Annotated

from fastapi import APIRouter, Depends, Form, Request
from fastapi.responses import HTMLResponse, RedirectResponse, Response

from dealer_assist.floor.web import pages
from dealer_assist.store.users import UserError
from dealer_assist.web.auth import (
    LOGIN_COOKIE,
    LoginFailed,
    Session,
    check_csrf,
    current_session,
    require,
    safe_next,
    secure_cookies,
    signed_in,
    signed_out,
)
from dealer_assist.web.language import keep_language

#: Where each role lands after logging in.
HOME = {"supervisor": "/pit", "surveillance": "/pit", "regulator": "/regulator"}
ROLES = tuple(HOME)

router = APIRouter()
AnyUser = Annotated[Session, Depends(require(*ROLES))]


def _next(next_path: str, role: str) -> str:
    """A local path only (never another site), else the role's home."""
    chosen = safe_next(next_path, "")
    return HOME.get(role, "/login") if chosen == "/" else chosen


def _form(request: Request, next_path: str, error: str | None = None, name: str = "",
          status: int = 200) -> HTMLResponse:
    token = secrets.token_urlsafe(24)
    response = pages.render(request, "login.html", status=status, token=token,
                            next_path=next_path[:500], error=error, name=name[:64])
    response.set_cookie(LOGIN_COOKIE, token, httponly=True, samesite="strict",
                        secure=secure_cookies(request), path="/login", max_age=3600)
    return response


@router.get("/")
def home(request: Request) -> Response:
    session = current_session(request)
    return RedirectResponse(HOME.get(session.account.role, "/login") if session else "/login",
                            status_code=303)


@router.get("/login")
def login_form(request: Request, next: str = "") -> Response:
    session = current_session(request)
    if session is not None:
        return RedirectResponse(_next(next, session.account.role), status_code=303)
    return _form(request, next)


@router.post("/login")
def login(request: Request, name: str = Form(""), password: str = Form(""),
          csrf: str = Form(""), next: str = Form("")) -> Response:
    check_csrf(request.cookies.get(LOGIN_COOKIE), csrf)
    try:
        client = request.client.host if request.client else "unknown"
        account = request.app.state.accounts.login(name.strip(), password, client)
    except LoginFailed as e:
        return _form(request, next, str(e), name, status=401)
    return signed_in(request, account, _next(next, account.role))


@router.post("/logout")
def logout(request: Request, session: AnyUser, csrf: str = Form("")) -> Response:
    return signed_out(request, session, csrf)


@router.post("/account/language")
def choose_language(request: Request, session: AnyUser, csrf: str = Form(""),
                    lang: str = Form(""), next: str = Form("")) -> Response:
    refused = keep_language(request, session, csrf, lang, pages.message, (UserError,))
    return refused or RedirectResponse(_next(next, session.account.role), status_code=303)
