"""The floor service's web application: `create_floor_app(dsn, ...)`.

No import-time state: the app owns a psycopg connection pool on the central store (opened
when the server starts, closed when it stops), one LISTEN connection (listen.py) that feeds
every open pit screen, and the folder (floor/fold.py) that folds the read models from the
tables' stored events on its own connection; the server starts serving once the folder has
folded what was pending (or after `fold_wait` seconds, folding on meanwhile). Routes and who may use them:

    /login (GET, POST), /          public   the login form; / sends each role to its home
    /logout (POST)                 any user
    /pit...  (pit.py)              supervisor, surveillance; POST /pit/decide supervisor only
    /regulator...                  regulator (floor/regulator.py, when present)
    /static/*, /floor-static/*     public   styles and the pit's script
    /favicon.ico                   public   the icon (accounts/pages.py)
    /healthz                       public   the server answers (systemd's watchdog)

The front door both apps share (dealer_assist.accounts): the same login and logout routes, throttle,
error pages, input checks and headers; signed sessions that outlive a restart
(accounts/session.py; logouts kept in `floor_sessions_ended`), an HttpOnly SameSite=Strict
cookie, CSRF tokens on every form, a state-changing request from another site's page
(`Origin`) refused with 403. A central store that does not answer gives 503 with a page that
says so, never a traceback; everything else unknown answers 404.
"""

from __future__ import annotations

import asyncio
import importlib
import logging
import secrets
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager

import psycopg
from fastapi import APIRouter, FastAPI, Request, Response
from fastapi.responses import JSONResponse
from fastapi.staticfiles import StaticFiles
from psycopg_pool import ConnectionPool, PoolTimeout

from dealer_assist.accounts.auth import known_session, require
from dealer_assist.accounts.guard import guard
from dealer_assist.accounts.login import Accounts
from dealer_assist.accounts.pages import STATIC as SHARED_STATIC
from dealer_assist.accounts.pages import favicon
from dealer_assist.accounts.session import KEY_SIZE, SignedSessions
from dealer_assist.accounts.settings import WebSettings
from dealer_assist.accounts.stream import Hub
from dealer_assist.config.paytables import load_paytables
from dealer_assist.domain.paytable import PayTable
from dealer_assist.floor.fold import Folder
from dealer_assist.floor.users import FloorUsers
from dealer_assist.floor.web import login, pages, pit
from dealer_assist.floor.web.listen import Listener

_log = logging.getLogger(__name__)


def _regulator_router(pool: ConnectionPool) -> APIRouter | None:
    """The floor's regulator pages (helper module `floor.regulator`), when it is installed."""
    try:
        module = importlib.import_module("dealer_assist.floor.regulator")
    except ModuleNotFoundError as e:
        if e.name != "dealer_assist.floor.regulator":
            raise
        return None
    router: APIRouter = module.floor_regulator_router(pool, require("regulator", page=True))
    return router


def create_floor_app(dsn: str, *, settings: WebSettings | None = None,
                     accounts: Accounts | None = None,
                     paytables: dict[str, PayTable] | None = None,
                     routers: Sequence[APIRouter] = (), pool_size: int = 8,
                     fold_wait: float = 30.0, session_key: bytes | None = None) -> FastAPI:
    """The floor service over the central store at `dsn` (the floor service's role, or the
    store's owner). `accounts`: the logins (default: `floor_users` in the store, behind the
    throttle). `session_key`: what signs the sessions (accounts/session.py's `key_file`: a
    0600 file); without one a key of this process's own, so that a restart logs everyone
    out."""
    settings = settings or WebSettings()
    # each connection is checked as it is handed out: after the store restarted, a page gets
    # a fresh connection rather than a 503 from a dead one
    pool = ConnectionPool(dsn, min_size=1, max_size=pool_size, open=False, timeout=5.0,
                          kwargs={"connect_timeout": 5}, name="floor",
                          check=ConnectionPool.check_connection)
    hub = Hub()
    listener = Listener(dsn, hub)
    folder = Folder(dsn)

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        pool.open(wait=False)
        hub.attach(asyncio.get_running_loop())
        listener.start()
        folder.start()
        try:
            await asyncio.to_thread(folder.ready.wait, fold_wait)
            yield
        finally:
            hub.close()
            folder.stop()
            listener.stop()
            pool.close()

    app = FastAPI(title="dealer-assist floor", lifespan=lifespan, docs_url=None,
                  redoc_url=None, openapi_url=None)
    app.state.pool = pool
    app.state.hub = hub
    app.state.listener = listener
    app.state.folder = folder
    app.state.settings = settings
    app.state.accounts = accounts or Accounts(FloorUsers(pool), label="floor ")
    if session_key is None:
        _log.warning("no session key: the floor's sessions end when the service stops")
    app.state.sessions = SignedSessions(session_key or secrets.token_bytes(KEY_SIZE),
                                        app.state.accounts,
                                        settings.session_minutes * 60.0)
    app.state.paytables = paytables or load_paytables()
    app.mount("/static", StaticFiles(directory=SHARED_STATIC), name="static")
    app.mount("/floor-static", StaticFiles(directory=pages.STATIC), name="floor-static")
    app.add_api_route("/favicon.ico", favicon, methods=["GET", "HEAD"], include_in_schema=False)
    app.include_router(login.router)
    app.include_router(pit.router)
    regulator = _regulator_router(pool)
    if regulator is not None:
        app.include_router(regulator)
    for router in routers:
        app.include_router(router)

    @app.get("/healthz")
    def healthz() -> JSONResponse:
        """The watchdog's check: the server answers; says whether the listener listens."""
        return JSONResponse({"status": "ok", "listening": listener.listening.is_set()})

    async def unreachable(request: Request, exc: Exception) -> Response:
        _log.warning("central store unreachable for %s: %s", request.url.path, exc)
        return pages.message(request, "Central store unreachable",
                             "The floor's central store does not answer just now; the tables "
                             "keep dealing and will catch up. Try again in a moment.",
                             known_session(request), 503)

    app.add_exception_handler(PoolTimeout, unreachable)
    app.add_exception_handler(psycopg.OperationalError, unreachable)

    guard(app, pages.message, lambda path: path.startswith(("/static/", "/floor-static/")))
    return app
