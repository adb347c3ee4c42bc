"""The supervisor's review console, the decision history and the dealer's buttons (the login
and logout are the front door's: accounts/routes.py).

Handlers are thin: check the session and the CSRF token, call the live table, render.
The review page of a flagged game shows the camera's frames of its flags, served by hash from
`/supervisor/evidence/<sha256>.jpg` (the frames kept beside the log: `app.state.evidence`).
Times are shown on the site's clock (`WebSettings.gaming_day`; UTC unless the config names a zone).
"""

from __future__ import annotations

import logging
from collections.abc import Callable
from datetime import UTC, datetime
from typing import Annotated, Any, Protocol

from fastapi import APIRouter, Depends, Form, Request
from fastapi.concurrency import run_in_threadpool
from fastapi.responses import (
    HTMLResponse,
    JSONResponse,
    RedirectResponse,
    Response,
    StreamingResponse,
)
from markupsafe import Markup

from dealer_assist.accounts.auth import Session, check_csrf, require
from dealer_assist.accounts.pages import translator
from dealer_assist.accounts.review_form import hands_from_form
from dealer_assist.accounts.stream import sse
from dealer_assist.charts import svg
from dealer_assist.charts.data import NO_DEALER, by_dealer, flags_by_hour, recent, shifts, when
from dealer_assist.charts.fit import shoe_fit
from dealer_assist.config.gaming_day import GamingDay
from dealer_assist.domain.excerpt import shown
from dealer_assist.domain.flags import FLAGS
from dealer_assist.export.evidence import is_sha256
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from dealer_assist.web import pages

router = APIRouter()
_log = logging.getLogger("dealer_assist")
#: The session a route needs: `page` routes send a visitor with no session to the login form.
SupervisorPage = Annotated[Session, Depends(require("supervisor", page=True))]
Supervisor = Annotated[Session, Depends(require("supervisor"))]
ReaderPage = Annotated[Session, Depends(require("supervisor", "regulator", page=True))]
Reader = Annotated[Session, Depends(require("supervisor", "regulator"))]
DealerPage = Annotated[Session, Depends(require("dealer", "supervisor", page=True))]
Dealer = Annotated[Session, Depends(require("dealer", "supervisor"))]


def _table(request: Request) -> LiveTable:
    table: LiveTable = request.app.state.table
    return table


def _clock(request: Request) -> GamingDay:
    """The site's zone, for the times the pages show."""
    clock: GamingDay = request.app.state.settings.gaming_day
    return clock


def _excerpt(text: str) -> str:
    """A refusal as the page shows it: a form field of megabytes is not echoed whole."""
    return text if len(text) <= 300 else text[:297] + "..."


# ---- the review console -------------------------------------------------------------------

@router.get("/supervisor")
def console_page(request: Request, session: SupervisorPage, decided: str = "") -> HTMLResponse:
    table = _table(request)
    message = f"Decision recorded for game {decided}." if decided.isdigit() else None
    clock = _clock(request)
    return pages.render(request, "console.html", session, items=table.review_queue(),
                        alerts=table.side_bet_alerts(), links=table.link_details(),
                        problems=dict(table.link_problems), shoes=table.shoes(),
                        message=message, scripts=["console.js"], clock=clock,
                        duty=table.on_duty(),
                        **dealer_pictures(table, clock, 8, None,
                                          translator(request, session)))


@router.get("/supervisor/queue")
def queue_fragment(request: Request, session: SupervisorPage) -> HTMLResponse:
    """The queue's HTML alone: the console's script swaps it in when the queue changes."""
    items = _table(request).review_queue()
    return pages.render(request, "queue.html", session, items=items,
                        headers={"X-Queue-Count": str(len(items))})


@router.get("/supervisor/stream")
async def review_stream(request: Request, session: Supervisor) -> Response:
    """Server-sent events (`review`): a key that changes whenever the queue or alerts change."""
    update = await run_in_threadpool(_table(request).update)
    first = sse("review", update.seq, {"key": update.review_key,
                                       "pending": update.pending_reviews, "alerts": update.alerts})
    return StreamingResponse(request.app.state.hub.stream("review", first),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


@router.get("/supervisor/review")
def review_page(request: Request, session: SupervisorPage, game: int,
                shoe: str = "") -> HTMLResponse:
    table = _table(request)
    item = table.review(shoe or None, game)
    if item is None:
        return pages.message(request, "No such game", f"No game {game} in shoe {shoe}.",
                             session, 404)
    item = {**item, "frames": _frames(request, table, item)}
    return pages.render(request, "game.html", session,
                        item=_with_decision(table, _clock(request), item))


def _with_decision(table: LiveTable, clock: GamingDay, item: dict[str, Any]) -> dict[str, Any]:
    """The review item with `decision`: for a game already decided, the decision that settles
    it (who, what, why, when: the history's newest on this game, or a `void_shoe` from this
    game or an earlier one of the shoe, as services/decisions.py settles it); else None."""
    if item["review"] != "resolved":
        return {**item, "decision": None}
    number = item["game"]
    for row in table.history(item["shoe_id"]):
        if row["game"] == number or (row["action"] == "void_shoe"
                                     and isinstance(row["game"], int) and row["game"] <= number):
            return {**item, "decision": {**row, "when": clock.show(row["ts"])}}
    return {**item, "decision": None}


@router.post("/supervisor/decide")
def decide(request: Request, session: Supervisor, csrf: str = Form(""), shoe: str = Form(""),
           game: str = Form(""), action: str = Form(""), reason: str = Form(""), P1: str = Form(""),
           P2: str = Form(""), P3: str = Form(""), B1: str = Form(""), B2: str = Form(""),
           B3: str = Form("")) -> Response:
    check_csrf(session.csrf, csrf)
    table = _table(request)
    if not (game.isascii() and game.isdigit() and len(game) <= 18):
        return pages.message(request, "Bad request", f"game {shown(game)} is not a game number",
                             session)
    number = int(game)
    cards = {"P1": P1, "P2": P2, "P3": P3, "B1": B1, "B2": B2, "B3": B3}
    item = table.review(shoe or None, number)
    try:
        player, banker = ([], []) if action != "correct" or item is None else hands_from_form(
            cards, bool(item["seven_up"]), Refused)
        table.decide(session.account.name, number, action, reason, shoe_id=shoe or None,
                     player=player, banker=banker)
    except Refused as e:
        said = _excerpt(str(e))
        item = table.review(shoe or None, number)
        if item is None:
            return pages.message(request, "Decision refused", said, session)
        return pages.render(request, "game.html", session, 400,
                            item=_with_decision(table, _clock(request), item),
                            error=f"Not recorded: {said}", reason=reason)
    return RedirectResponse(f"/supervisor?decided={number}", status_code=303)


@router.get("/supervisor/history")
def history(request: Request, session: ReaderPage, shoe: str = "",
            flag: str = "") -> HTMLResponse:
    table = _table(request)
    rows = table.history(shoe or None, flag or None)
    shoe_ids = [s["shoe_id"] for s in table.shoes()]
    return pages.render(request, "history.html", session, rows=rows, shoe_ids=shoe_ids,
                        flag_codes=sorted(FLAGS), shoe=shoe or None, flag=flag or None,
                        clock=_clock(request))


@router.get("/api/review-queue")
def review_queue_json(request: Request, session: Supervisor) -> JSONResponse:
    return JSONResponse(_table(request).review_queue())


@router.get("/api/history")
def history_json(request: Request, session: Reader, shoe: str = "",
                 flag: str = "") -> JSONResponse:
    rows: list[dict[str, Any]] = _table(request).history(shoe or None, flag or None)
    return JSONResponse(rows)


# ---- the camera's evidence frames ----------------------------------------------------------

class EvidenceFrames(Protocol):
    """The frames kept beside the log (store.evidence.EvidenceReader, set by bootstrap as
    `app.state.evidence`)."""

    def jpeg(self, sha256: str) -> bytes | None: ...

    def game_frames(self, shoe_id: str, started: str, game: int) -> list[dict[str, Any]]: ...


def _evidence(request: Request) -> EvidenceFrames | None:
    return getattr(request.app.state, "evidence", None)


def _frames(request: Request, table: LiveTable, item: dict[str, Any]) -> list[dict[str, Any]]:
    """The frames of the flags of a game under review ([] with no camera's evidence)."""
    evidence = _evidence(request)
    if evidence is None or not item["flags"]:
        return []
    started = next((s["started"] for s in table.shoes() if s["shoe_id"] == item["shoe_id"]),
                   None)
    if not started:
        return []
    try:
        return evidence.game_frames(item["shoe_id"], started, item["game"])
    except Exception:  # the picture is an aid: the review page never fails for it
        _log.exception("evidence frames of game %s of shoe %s", item["game"], item["shoe_id"])
        return []


@router.get("/supervisor/evidence/{name}")
def evidence_frame(request: Request, session: Supervisor, name: str) -> Response:
    """A kept frame by its name, `<sha256>.jpg`; anything else, or a frame not kept, is 404."""
    sha, dot, suffix = name.partition(".")
    evidence = _evidence(request)
    data = evidence.jpeg(sha) if evidence and dot and suffix == "jpg" and is_sha256(sha) else None
    if data is None:
        return Response("no such frame", status_code=404, media_type="text/plain")
    return Response(data, media_type="image/jpeg",
                    headers={"Cache-Control": "private, max-age=86400, immutable"})


# ---- the dealer ---------------------------------------------------------------------------

@router.get("/dealer")
def dealer_page(request: Request, session: DealerPage, done: str = "") -> HTMLResponse:
    message = "Recorded: the cards are open." if done else None
    table = _table(request)
    return pages.render(request, "dealer.html", session, public=table.public(),
                        message=message, duty=table.on_duty(), clock=_clock(request))


@router.post("/dealer/sign-in")
def dealer_sign_in(request: Request, session: Dealer, csrf: str = Form("")) -> Response:
    """The dealer of the session takes the table; whoever dealt before is relieved."""
    check_csrf(session.csrf, csrf)
    if session.account.role != "dealer":
        return pages.message(request, "Dealer", "Only a dealer signs in at the table, as "
                             "themself: log in with the dealer's account.", session, 403)
    try:
        _table(request).sign_in(session.account.name)
    except Refused as e:
        return pages.message(request, "Dealer", _excerpt(str(e)), session)
    return RedirectResponse("/dealer/shift", status_code=303)


@router.post("/dealer/sign-out")
def dealer_sign_out(request: Request, session: Dealer, csrf: str = Form("")) -> Response:
    """The dealer at the table is relieved with no one after: by themself or a supervisor."""
    check_csrf(session.csrf, csrf)
    mine = None if session.account.role == "supervisor" else session.account.name
    try:
        _table(request).sign_out(mine)
    except Refused as e:
        return pages.message(request, "Dealer", _excerpt(str(e)), session, 409)
    return RedirectResponse("/dealer/shift", status_code=303)


@router.get("/dealer/shift")
def dealer_shift(request: Request, session: DealerPage) -> HTMLResponse:
    """Who deals at the table now, with the sign-in and sign-out buttons."""
    return pages.render(request, "dealer/shift.html", session, duty=_table(request).on_duty(),
                        clock=_clock(request))


# ---- dealers, shifts and pictures for the supervisor --------------------------------------

@router.get("/supervisor/dealers")
def dealers_page(request: Request, session: SupervisorPage, hours: str = "8",
                 shoe: str = "") -> HTMLResponse:
    """Flags per dealer and per shift, flags by hour and by dealer over the last `hours`, and
    a shoe's results against the exact odds (the current shoe unless `shoe` names one)."""
    if not (hours.isascii() and hours.isdigit() and 1 <= int(hours) <= 48):
        return pages.message(request, "Dealers", f"hours {shown(hours)}: a whole number of "
                             "hours from 1 to 48", session)
    table = _table(request)
    clock = _clock(request)
    return pages.render(request, "dealer/dealers.html", session,
                        **dealer_pictures(table, clock, int(hours), shoe or None,
                                          translator(request, session)),
                        duty=table.on_duty(), clock=clock)


def dealer_pictures(table: LiveTable, clock: GamingDay, hours: int, shoe_id: str | None,
                    gettext: Callable[[str], str] = str) -> dict[str, Any]:
    """What the dealers' page shows: the shifts, the per-dealer totals, and its pictures, their
    words in the page's language (`gettext`: pages.translator's). The window is the `hours` up
    to the latest game's start (now, when no game was dealt)."""
    games = table.dealt_games()
    last = max((w for g in games if (w := when(g["start"])) is not None), default=None)
    until = last or datetime.now(UTC)  # the hours of play up to the latest game
    window = recent(games, until, hours)
    per_dealer = by_dealer(window)
    reports = table.shoe_reports()
    chosen = next((r for r in reports if r["shoe_id"] == shoe_id), None) if shoe_id else (
        reports[-1] if reports else None)
    fit = shoe_fit(chosen) if chosen else None
    words = svg.translated_words(gettext)
    return {
        "hours": hours, "shifts": list(reversed(shifts(games))), "per_dealer": per_dealer,
        "shoe_ids": [r["shoe_id"] for r in reversed(reports)], "fit": fit,
        "by_hour_svg": Markup(svg.bar_chart(
            svg.title(gettext, "by_hour", hours),
            flags_by_hour(window, until, hours, clock.zone), words=words, kind="by-hour")),
        "by_dealer_svg": Markup(svg.bar_chart(
            svg.title(gettext, "by_dealer", hours),
            [(words[NO_DEALER] if d.dealer == NO_DEALER else d.dealer, d.flags)
             for d in per_dealer], words=words, kind="by-dealer")),
        "fit_svg": Markup(svg.fit_chart(fit, svg.title(gettext, "fit", fit.shoe_id), words))
        if fit else None,
    }


@router.post("/dealer/reveal")
def reveal(request: Request, session: Dealer, csrf: str = Form(""),
           side: str = Form("all")) -> Response:
    check_csrf(session.csrf, csrf)
    if side not in ("all", "player", "banker"):
        return pages.message(request, "Bad request", f"side {shown(side)}: all, player or banker",
                             session)
    _table(request).reveal(None if side == "all" else side, src="dealer")
    return RedirectResponse("/dealer?done=1", status_code=303)
