"""The web application of one table: `create_app(table, accounts, settings)`.

No import-time state: everything the app uses comes in as arguments (bootstrap builds them).
Routes and who may use them (see docs/service.md):

    /                         public   the table display (pushed by server-sent events)
    /events, /api/table       public   the display's stream and its snapshot
    /static/*, /favicon.ico   public   the display's and console's scripts, the styles, the icon
                                       (the pages' stylesheet and the icon: accounts/static/)
    /login (GET, POST)        public   the login form (accounts/routes.py: the front door)
    /logout, /account/language (POST)  any user
    /supervisor...            supervisor (history also regulator)
    /dealer, /dealer/reveal   dealer, supervisor
    /api/review-queue         supervisor
    /healthz, /metrics        public; this machine only (web/health.py, routed by bootstrap)

Everything else answers 404. The logins, sessions, error pages, input checks and headers are
the front door's, as on the floor (dealer_assist.accounts: accounts/guard.py): a
state-changing request from another site's page (its `Origin`) is refused with 403, a value
the stores could not take (a NUL, text that is not UTF-8) with 400 before any route; a strict
Content-Security-Policy (no inline script), no framing, no caching of console pages.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import asynccontextmanager
from typing import Any

from fastapi import APIRouter, FastAPI
from fastapi.staticfiles import StaticFiles

from dealer_assist.accounts.auth import Sessions, safe_next
from dealer_assist.accounts.guard import guard
from dealer_assist.accounts.login import Accounts
from dealer_assist.accounts.pages import favicon
from dealer_assist.accounts.routes import front_door
from dealer_assist.accounts.settings import WebSettings
from dealer_assist.accounts.stream import Hub, sse
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.table_reads import Update
from dealer_assist.web import console, display
from dealer_assist.web.display import STATIC
from dealer_assist.web.pages import PAGES

#: Where each role lands after logging in (unless the login asked for another local page).
ROLE_HOME = {"supervisor": "/supervisor", "dealer": "/dealer", "regulator": "/regulator"}
ROLES = tuple(ROLE_HOME)


def landing(next_path: str, role: str) -> str:
    """After a login: the local page asked for, else the role's home (the display for none)."""
    return safe_next(next_path, ROLE_HOME.get(role, "/"))


def cached(path: str) -> bool:
    """The answers a browser may keep: the public display and the static files."""
    return path == "/" or path.startswith("/static/")


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
    guards its own routes with `accounts.auth.require`. `sessions`: signed sessions that outlive
    a restart (accounts/session.py; bootstrap builds them), else sessions in memory."""
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
    app.mount("/static", StaticFiles(directory=STATIC, packages=[
        ("dealer_assist.accounts", "static")]), name="static")
    app.add_api_route("/favicon.ico", favicon, methods=["GET", "HEAD"], include_in_schema=False)
    app.include_router(display.router)
    app.include_router(front_door(ROLES, landing, PAGES))
    app.include_router(console.router)
    for router in routers:
        app.include_router(router)
    guard(app, PAGES.message, cached)
    return app
