"""What both web apps answer before and after any route: `guard(app, say, cached)`.

- A request with no session on a route that needs one: a page GET is sent to the login form
  (`/login?next=...`), anything else gets 401 `log in first`.
- A session of another role, or a CSRF token that does not check: 403, a page that says why.
- Fields that are missing or do not parse: 400 naming them (a page, or JSON under /api/), not
  the framework's 422 (accounts/pages.py's `invalid_request`).
- A value the stores could not take (a NUL, text that is not UTF-8, a body too large): 400,
  413 or 415 before any route (accounts/inputs.py).
- A state-changing request from another site's page (its `Origin`): 403 before any route.
- Every answer: a renewed session cookie when the session's last use moved on, a strict
  Content-Security-Policy (no inline script), no framing, no MIME sniffing, the referrer kept
  to this site, and no caching except where `cached(path)` says (the public display, static
  files).

`say` is the app's page that says why a request was not done (its `Pages.message`).
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable

from fastapi import FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse

from dealer_assist.accounts.auth import (
    Forbidden,
    LoginRequired,
    cross_site,
    current_session,
    login_url,
    renew_cookie,
)
from dealer_assist.accounts.inputs import InputCheck, Say
from dealer_assist.accounts.pages import invalid_request

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


def guard(app: FastAPI, say: Say, cached: Callable[[str], bool]) -> None:
    """Install the error pages, the input check and the security headers on `app`."""

    @app.exception_handler(LoginRequired)
    async def login_required(request: Request, exc: LoginRequired) -> Response:
        if exc.page:
            return RedirectResponse(login_url(exc.next_path), status_code=303)
        return JSONResponse({"detail": "log in first"}, status_code=401)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return invalid_request(request, exc, current_session(request), say)

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, exc: Forbidden) -> Response:
        return say(request, "Not allowed", str(exc), current_session(request), 403)

    app.add_middleware(InputCheck, say=say)  # inside `headers`: its answers get them too

    @app.middleware("http")
    async def headers(request: Request,
                      call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        refusal = cross_site(request)
        response = await call_next(request) if refusal is None else say(
            request, "Not allowed", refusal, status=403)
        renew_cookie(request, response)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        if not cached(request.url.path):
            response.headers.setdefault("Cache-Control", "no-store")
        return response
