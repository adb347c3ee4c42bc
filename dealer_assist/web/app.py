"""The web application of one table: `create_app(table, accounts, settings)`.

No import-time state: everything the app uses comes in as arguments (bootstrap builds them).
Routes and who may use them (see docs/service.md):

    /                         public   the table display (pushed by server-sent events)
    /events, /api/table       public   the display's stream and its snapshot
    /static/*, /favicon.ico   public   the display's and console's scripts and styles, the icon
    /login (GET, POST)        public   the login form
    /logout (POST)            any user
    /supervisor...            supervisor (history also regulator)
    /dealer, /dealer/reveal   dealer, supervisor
    /api/review-queue         supervisor
    /healthz, /metrics        public; this machine only (web/health.py, routed by bootstrap)

Everything else answers 404. A state-changing request from another site's page (its `Origin`)
is refused with 403. A value the stores could not take (a NUL, text that is not UTF-8) is
refused with 400 before any route (web/inputs.py). Headers: a strict Content-Security-Policy
(no inline script), no framing, no caching of console pages.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.exceptions import RequestValidationError
from fastapi.responses import JSONResponse, RedirectResponse
from fastapi.staticfiles import StaticFiles

from dealer_assist.config.gaming_day import GamingDay
from dealer_assist.services.live_table import LiveTable, Update
from dealer_assist.web import console, display, language
from dealer_assist.web.auth import (
    Accounts,
    Forbidden,
    LoginRequired,
    Sessions,
    cross_site,
    current_session,
    login_url,
    renew_cookie,
)
from dealer_assist.web.display import STATIC
from dealer_assist.web.inputs import InputCheck
from dealer_assist.web.pages import favicon, invalid_request, message
from dealer_assist.web.stream import Hub, sse

CSP = ("default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; "
       "connect-src 'self'; frame-ancestors 'none'; form-action 'self'; base-uri 'none'")


@dataclass(frozen=True)
class WebSettings:
    #: Mark the session cookie Secure (behind HTTPS).
    secure_cookies: bool = False
    #: A session ends after this long without a request.
    session_minutes: int = 480
    #: The site's zone and gaming day: the times the console shows are on its clock.
    gaming_day: GamingDay = field(default_factory=GamingDay)


def publisher(hub: Hub) -> Callable[[Update], None]:
    """The live table's listener: each update to the display's and the console's streams."""

    def publish(update: Update) -> None:
        hub.publish("public", sse("table", update.seq, update.public))
        hub.publish("review", sse("review", update.seq, {
            "key": update.review_key, "pending": update.pending_reviews, "alerts": update.alerts}))

    return publish


def create_app(table: LiveTable, accounts: Accounts, settings: WebSettings | None = None,
               routers: Sequence[APIRouter] = (), sessions: Any = None) -> FastAPI:
    """The table's app. `routers`: more routes to serve (e.g. the regulator's pages); each
    guards its own routes with `auth.require`. `sessions`: signed sessions that outlive a
    restart (web/session.py; bootstrap builds them), else sessions in memory."""
    settings = settings or WebSettings()
    hub = Hub()

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        hub.attach(asyncio.get_running_loop())
        unsubscribe = table.subscribe(publisher(hub))
        try:
            yield
        finally:
            unsubscribe()
            hub.close()

    app = FastAPI(title="dealer-assist", lifespan=lifespan, docs_url=None, redoc_url=None,
                  openapi_url=None)
    app.state.table = table
    app.state.accounts = accounts
    app.state.settings = settings
    app.state.sessions = sessions or Sessions(settings.session_minutes * 60.0)
    app.state.hub = hub
    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    app.add_api_route("/favicon.ico", favicon, methods=["GET", "HEAD"], include_in_schema=False)
    app.include_router(display.router)
    app.include_router(console.router)
    app.include_router(language.router)
    for router in routers:
        app.include_router(router)

    @app.exception_handler(LoginRequired)
    async def login_required(request: Request, exc: LoginRequired) -> Response:
        if exc.page:
            return RedirectResponse(login_url(exc.next_path), status_code=303)
        return JSONResponse({"detail": "log in first"}, status_code=401)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, exc: RequestValidationError) -> Response:
        return invalid_request(request, exc, current_session(request), message)

    @app.exception_handler(Forbidden)
    async def forbidden(request: Request, exc: Forbidden) -> Response:
        return message(request, "Not allowed", str(exc), current_session(request), 403)

    app.add_middleware(InputCheck, say=message)  # inside `headers`: its answers get them too

    @app.middleware("http")
    async def headers(request: Request,
                      call_next: Callable[[Request], Awaitable[Response]]) -> Response:
        refusal = cross_site(request)
        response = await call_next(request) if refusal is None else message(
            request, "Not allowed", refusal, status=403)
        renew_cookie(request, response)
        response.headers.setdefault("Content-Security-Policy", CSP)
        response.headers["X-Frame-Options"] = "DENY"
        response.headers["X-Content-Type-Options"] = "nosniff"
        response.headers["Referrer-Policy"] = "same-origin"
        path = request.url.path
        if not (path == "/" or path.startswith("/static/")):
            response.headers.setdefault("Cache-Control", "no-store")
        return response

    return app
