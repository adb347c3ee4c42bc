"""The pit: the board of every table, the review queue across tables, a game's review page,
decisions taken on the floor (stored as requests the owning table records), and the stream.

    /pit, /pit/board          supervisor, surveillance   the board (page, and its fragment)
    /pit/stream               supervisor, surveillance   server-sent events from LISTEN/NOTIFY
    /pit/queue, /pit/queue/list, /pit/review, /pit/requests
                              supervisor, surveillance   the queue (what a person can act on:
                                                         floor/web/pit_queue.py), a game, the
                                                         floor's requests
    /pit/dealers              supervisor, surveillance   flags per dealer and per shift across
                                                         the pit's tables (?from=&to= days)
    /api/pit, /api/pit/dealers
                              supervisor, surveillance   the board, the dealers as JSON
    POST /pit/decide          supervisor                 a decision request for a table's game
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Form, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, RedirectResponse, StreamingResponse
from markupsafe import Markup

from dealer_assist.accounts.auth import Session, check_csrf, require
from dealer_assist.accounts.pages import translator
from dealer_assist.accounts.review_form import hands_from_form
from dealer_assist.accounts.stream import sse
from dealer_assist.charts import svg
from dealer_assist.charts.data import NO_DEALER
from dealer_assist.domain.events import MAX_REASON
from dealer_assist.domain.excerpt import shown
from dealer_assist.floor.requests import RequestRefused, ask, requests
from dealer_assist.floor.roles import TABLE_ID
from dealer_assist.floor.web import board, pages, pit_queue
from dealer_assist.floor.web.listen import PIT

router = APIRouter()
WATCHERS = ("supervisor", "surveillance")
WatcherPage = Annotated[Session, Depends(require(*WATCHERS, page=True))]
Watcher = Annotated[Session, Depends(require(*WATCHERS))]
Supervisor = Annotated[Session, Depends(require("supervisor"))]


def _board(request: Request) -> dict[str, Any]:
    with request.app.state.pool.connection() as conn:
        return {"tables": board.tables(conn), "alarms": board.alarms(conn),
                "queue_count": pit_queue.count(conn),
                "at": datetime.now(UTC).isoformat(timespec="seconds")}


@router.get("/pit")
def pit_page(request: Request, session: WatcherPage) -> HTMLResponse:
    return pages.render(request, "pit.html", session, scripts=["pit.js"], **_board(request))


@router.get("/pit/board")
def pit_board(request: Request, session: WatcherPage) -> HTMLResponse:
    """The board alone: the page's script swaps it in when the stream says something changed."""
    return pages.render(request, "pit_board.html", session, **_board(request))


@router.get("/api/pit")
def pit_json(request: Request, session: Watcher) -> JSONResponse:
    return JSONResponse(_board(request))


@router.get("/pit/stream")
async def pit_stream(request: Request, session: Watcher) -> Response:
    """Server-sent events: `hello` first, then `table` (a batch stored: {table}), `alarm`
    (an integrity alarm), `request` (a floor decision request changed) and `resync`."""
    first = sse("hello", 0, {"listening": request.app.state.listener.listening.is_set()})
    return StreamingResponse(request.app.state.hub.stream(PIT, first),
                             media_type="text/event-stream",
                             headers={"Cache-Control": "no-store", "X-Accel-Buffering": "no"})


def _queue(request: Request) -> list[dict[str, Any]]:
    with request.app.state.pool.connection() as conn:
        return pit_queue.queue(conn)


@router.get("/pit/queue")
def queue_page(request: Request, session: WatcherPage, asked: str = "") -> HTMLResponse:
    note = f"Request {asked} sent to the table." if asked.isdigit() and len(asked) < 19 \
        else None
    items = _queue(request)
    return pages.render(request, "pit_queue.html", session, items=items, message=note,
                        scripts=["pit.js"])


@router.get("/pit/queue/list")
def queue_list(request: Request, session: WatcherPage) -> HTMLResponse:
    items = _queue(request)
    return pages.render(request, "pit_queue_list.html", session, items=items,
                        headers={"X-Queue-Count": str(len(items))})


def floor_name(name: str) -> str:
    """Who a floor decision is by, as the table's log names it: the floor user, marked as one
    (a table's user of the same name is someone else)."""
    return f"{name}@floor"


def _game_number(game: str) -> int | None:
    return int(game) if game.isascii() and game.isdigit() and 0 < len(game) <= 9 else None


def _review(request: Request, session: Session, table: str, shoe: str, game: str,
            error: str | None = None, reason: str = "", status: int = 200) -> HTMLResponse:
    number = _game_number(game)
    if not TABLE_ID.fullmatch(table) or number is None or not shoe or len(shoe) > 100:
        return pages.message(request, "Bad request", f"table {shown(table)}, shoe {shown(shoe)}"
                             f", game {shown(game)}: not a game of the floor", session,
                             back=("/pit/queue", "Back to the queue"))
    with request.app.state.pool.connection() as conn:
        item = board.review(conn, table, shoe, number, request.app.state.paytables)
        decided = pit_queue.settling(conn, table, shoe, number)
        shoe_flags = pit_queue.shoe_flags(conn, table, shoe)
        dealer = board.dealer_of(conn, table, shoe, number)
        asked = [r for r in requests(conn, table) if r.shoe_id == shoe and r.game == number]
    if item is None:
        return pages.message(request, "No such game",
                             f"The central store has no game {number} of shoe {shoe} at "
                             f"table {table}.", session, 404,
                             back=("/pit/queue", "Back to the queue"))
    return pages.render(request, "pit_review.html", session, status, item=item, error=error,
                        reason=reason, decided=decided, asked=asked, dealer=dealer,
                        shoe_flags=shoe_flags)


@router.get("/pit/review")
def review_page(request: Request, session: WatcherPage, table: str = "", shoe: str = "",
                game: str = "") -> HTMLResponse:
    return _review(request, session, table, shoe, game)


@router.post("/pit/decide")
def decide(request: Request, session: Supervisor, csrf: str = Form(""), table: str = Form(""),
           shoe: str = Form(""), game: str = Form(""), action: str = Form(""),
           reason: str = Form(""), P1: str = Form(""), P2: str = Form(""), P3: str = Form(""),
           B1: str = Form(""), B2: str = Form(""), B3: str = Form("")) -> Response:
    """A decision taken on the floor: stored as a request that the table records."""
    check_csrf(session.csrf, csrf)
    number = _game_number(game)
    if not TABLE_ID.fullmatch(table) or number is None or not shoe or len(shoe) > 100:
        return pages.message(request, "Bad request", f"table {shown(table)}, shoe {shown(shoe)}"
                             f", game {shown(game)}: not a game of the floor", session)
    cards = {"P1": P1, "P2": P2, "P3": P3, "B1": B1, "B2": B2, "B3": B3}
    try:
        with request.app.state.pool.connection() as conn:
            player: list[str] = []
            banker: list[str] = []
            if action == "correct":
                item = board.review(conn, table, shoe, number, request.app.state.paytables)
                player, banker = hands_from_form(cards, bool(item and item["seven_up"]),
                                                 RequestRefused, cut=3)
            asked = ask(conn, table=table, shoe_id=shoe, game=number, action=action,
                        reason=reason, by=floor_name(session.account.name), player=player,
                        banker=banker)
    except RequestRefused as e:
        said = str(e) if len(str(e)) <= 300 else str(e)[:297] + "..."
        return _review(request, session, table, shoe, game, error=f"Not sent: {said}",
                       reason=reason[:MAX_REASON], status=400)
    return RedirectResponse(f"/pit/queue?asked={asked}", status_code=303)


@router.get("/pit/requests")
def requests_page(request: Request, session: WatcherPage, table: str = "") -> HTMLResponse:
    if table and not TABLE_ID.fullmatch(table):
        return pages.message(request, "Bad request", f"table {shown(table)}: no such table",
                             session)
    with request.app.state.pool.connection() as conn:
        rows = requests(conn, table or None)
    return pages.render(request, "pit_requests.html", session, rows=rows, table=table or None)


@router.get("/api/pit/requests")
def requests_json(request: Request, session: Watcher) -> JSONResponse:
    with request.app.state.pool.connection() as conn:
        rows = requests(conn)
    return JSONResponse([r.as_dict() for r in rows])



def _day(given: str, open_end: str) -> str | None:
    """A day as YYYY-MM-DD (`open_end` when none is given), or None when it is not one."""
    if not given:
        return open_end
    try:
        return date.fromisoformat(given).isoformat() if len(given) == 10 else None
    except ValueError:
        return None


def _span(first: str, last: str) -> tuple[str, str] | str:
    """The days from `first` to `last` (either may be open), or why they are refused."""
    start, end = _day(first, board.FIRST_DAY), _day(last, board.LAST_DAY)
    if start is None or end is None:
        return f"{shown(first if start is None else last)}: not a day (YYYY-MM-DD)"
    if start > end:
        return f"{start} comes after {end}"
    return start, end


def _dealers(request: Request, first: str, last: str) -> dict[str, Any] | str:
    span = _span(first, last)
    if isinstance(span, str):
        return span
    with request.app.state.pool.connection() as conn:
        return {"dealers": board.dealers(conn, *span), "shifts": board.shifts(conn, *span),
                "first": first, "last": last}


@router.get("/pit/dealers")
def dealers_page(request: Request, session: WatcherPage, first: str = Query("", alias="from"),
                 last: str = Query("", alias="to")) -> HTMLResponse:
    """Flags per dealer across the pit's tables, and per shift (newest first)."""
    found = _dealers(request, first, last)
    if isinstance(found, str):
        return pages.message(request, "Bad request", found, session,
                             back=("/pit/dealers", "Dealers"))
    return pages.render(request, "pit_dealers.html", session, **found,
                        **_pictures(found["dealers"], translator(request, session)))


def _pictures(dealers: list[dict[str, Any]], gettext: Callable[[str], str]) -> dict[str, Any]:
    """Each dealer's flags and flag rate as bar charts (SVG drawn here), in the page's words."""
    words = svg.translated_words(gettext)
    named = [(d["dealer"] or words[NO_DEALER], d) for d in dealers]
    return {
        "flags_svg": Markup(svg.bar_chart(gettext("Flags per dealer"),
                                          [(name, d["flags"]) for name, d in named],
                                          words=words, kind="pit-flags")),
        "rates_svg": Markup(svg.bar_chart(gettext("Flag rate"),
                                          [(name, d["rate"]) for name, d in named],
                                          percent=True, words=words, kind="pit-rates")),
    }


@router.get("/api/pit/dealers")
def dealers_json(request: Request, session: Watcher, first: str = Query("", alias="from"),
                 last: str = Query("", alias="to")) -> JSONResponse:
    found = _dealers(request, first, last)
    if isinstance(found, str):
        return JSONResponse({"detail": found}, status_code=400)
    return JSONResponse(found)
