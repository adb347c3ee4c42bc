"""The regulator's pages: shoes and games by table and day, flags, decisions, export download.

Read-only; every route needs a session of a regulator or a supervisor. `regulator_router`
takes its collaborators as arguments (no import-time state): the tables' records
(`services.records.TableRecords`, wired by bootstrap on the tables' logs, read-only) and the auth
dependency that guards every route, normally `auth.require(*REGULATOR_ROLES, page=True)`.

    GET /regulator                          tables, and the days of a month with shoes
    GET /regulator/{table}/days/{day}       the day's shoes, games, flags and decisions
    GET /regulator/{table}/days/{day}/dealers  the day as a timeline; flags per dealer, per shift
    GET /regulator/months/{month}           a month's flag rates per table and per dealer
    GET /regulator/{table}/export.zip       the signed export of ?from=..&to=.. (whole shoes)

Days are the site's gaming days and times are shown on the site's clock, with its zone
(`records.gaming_day`); a day or a time without an offset in an export's range is local too.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from markupsafe import Markup

from dealer_assist.accounts.pages import translator
from dealer_assist.charts.data import (
    NO_DEALER,
    by_dealer,
    day_marks,
    game_rows,
    rates_by,
    shifts,
)
from dealer_assist.charts.svg import bar_chart, timeline, title, translated_words
from dealer_assist.export.source import NothingToExport, parse_when
from dealer_assist.regulator.days import DayOutOfRange, calendar_day
from dealer_assist.regulator.download import Refusal, zip_download
from dealer_assist.services.records import DayView, NotSigning, TableRecords, UnknownTable
from dealer_assist.signing_keys import KeyProblem
from dealer_assist.web.pages import message, render

REGULATOR_ROLES = ("regulator", "supervisor")


def regulator_router(
    records: TableRecords,
    auth: Callable[..., Any],
    *,
    scratch: Path | None = None,
    today: Callable[[], date] | None = None,
) -> APIRouter:
    """The /regulator routes. `auth` is a FastAPI dependency returning the session (with
    `.account` and `.csrf`) or raising; it guards every route. Exports are written under
    `scratch` (default: the system's temporary folder) and removed once sent."""
    router = APIRouter(prefix="/regulator", dependencies=[Depends(auth)])
    guard = Depends(auth)  # the session, for the page's header (FastAPI runs `auth` once)
    clock = records.gaming_day
    today = today or (lambda: clock.day_of(datetime.now(UTC)))

    def problem(request: Request, who: Any, status: int, text: str) -> HTMLResponse:
        return message(request, "Regulator", text, who, status,
                       back=("/regulator", "Back to the tables"))

    @router.get("")
    def index(request: Request, who: Any = guard, table: str = "",
              month: str = "") -> HTMLResponse:
        tables = records.tables()
        chosen = table or (tables[0] if tables else "")
        first = _calendar_date(f"{month}-01", f"month {month!r}", "YYYY-MM, e.g. 2026-11") \
            if month else today().replace(day=1)
        if isinstance(first, str):
            return problem(request, who, 400, first)
        try:
            days = records.days(chosen, first) if chosen else []
        except UnknownTable as exc:
            return problem(request, who, 404, str(exc))
        return render(request, "regulator_index.html", who, tables=tables, table=chosen,
                      month=first, days=days, clock=clock)

    def day_view(request: Request, table: str, day: str, who: Any) -> DayView | HTMLResponse:
        """The day's view of `table`, or the page saying why there is none."""
        when = _calendar_date(day, f"day {day!r}", "YYYY-MM-DD, e.g. 2026-11-29")
        if isinstance(when, str):
            return problem(request, who, 400, when)
        try:
            return records.day(table, when)
        except UnknownTable as exc:
            return problem(request, who, 404, str(exc))

    @router.get("/{table}/days/{day}")
    def day_page(request: Request, table: str, day: str, who: Any = guard) -> HTMLResponse:
        view = day_view(request, table, day, who)
        if isinstance(view, HTMLResponse):
            return view
        return render(request, "regulator_day.html", who, view=view, clock=clock)

    @router.get("/{table}/days/{day}/dealers")
    def day_dealers(request: Request, table: str, day: str, who: Any = guard) -> HTMLResponse:
        """The day's games, flags and decisions as a timeline; its dealers and shifts."""
        view = day_view(request, table, day, who)
        if isinstance(view, HTMLResponse):
            return view
        when = view.day
        games, flags, decisions = day_marks(view.shoes, view.decisions)
        start, end = (clock.local(t) for t in clock.bounds(when))
        gettext = translator(request, who)
        picture = timeline(title(gettext, "day", table, when.isoformat()), start, end,
                           [(clock.local(t), label) for t, label in games],
                           [(clock.local(t), code) for t, code in flags],
                           [(clock.local(t), action) for t, action in decisions],
                           translated_words(gettext))
        rows = game_rows(view.shoes, table)
        return render(request, "dealer/regulator_dealers.html", who, view=view, clock=clock,
                      timeline_svg=Markup(picture), shifts=list(reversed(shifts(rows))),
                      per_dealer=by_dealer(rows))

    @router.get("/months/{month}")
    def month_rates(request: Request, month: str, who: Any = guard) -> HTMLResponse:
        """A month's flag rates: the share of each table's and each dealer's games flagged."""
        first = _calendar_date(f"{month}-01", f"month {month!r}", "YYYY-MM, e.g. 2026-11")
        if isinstance(first, str):
            return problem(request, who, 400, first)
        seen: set[tuple[str, str, int]] = set()
        rows = []
        for table in records.tables():
            for day, _shoes in records.days(table, first):
                for row in game_rows(records.day(table, day).shoes, table):
                    key = (table, row["shoe_seq"], row["game"])
                    if key not in seen:  # a shoe over midnight is in both days' views
                        seen.add(key)
                        rows.append(row)
        per_table, per_dealer = rates_by(rows, "table"), rates_by(rows, "dealer")
        label = first.strftime("%Y-%m")
        gettext = translator(request, who)
        words = translated_words(gettext)
        return render(
            request, "charts/regulator_month.html", who, month=first, games=len(rows),
            per_table=per_table, per_dealer=per_dealer,
            tables_svg=Markup(bar_chart(title(gettext, "table_rates", label),
                                        [(n, r) for n, _g, _f, r in per_table], percent=True,
                                        words=words, kind="table-rates")),
            dealers_svg=Markup(bar_chart(title(gettext, "dealer_rates", label),
                                         [(words[n] if n == NO_DEALER else n, r)
                                          for n, _g, _f, r in per_dealer],
                                         percent=True, words=words, kind="dealer-rates")))

    @router.get("/{table}/export.zip", response_model=None)
    def export(request: Request, table: str, start: Annotated[str, Query(alias="from")] = "",
               end: Annotated[str, Query(alias="to")] = "", who: Any = guard) -> Response:
        try:
            begin, until = parse_when(start, clock), parse_when(end, clock)
        except ValueError as exc:  # not a time, or one past the calendar's ends in UTC
            return problem(request, who, 400, f"export: {exc}")
        return zip_download(
            lambda folder: records.export(table, begin, until, folder).path, _EXPORT_REFUSALS,
            lambda status, text: problem(request, who, status, text),
            prefix="regulator-", scratch=scratch)

    return router


#: What a table's export download answers with a page instead of a zip, in this order.
_EXPORT_REFUSALS = (
    Refusal((UnknownTable, NothingToExport), 404),
    Refusal((NotSigning, KeyProblem), 503, "exports cannot be signed here: {}"),
    Refusal(ValueError, 400, "export: {}"),
)


def _calendar_date(iso: str, what: str, form: str) -> date | str:
    """The date of `iso`, or what is wrong with it (for a 400). A page can be drawn for a day a
    month inside the calendar's ends (its links name the day before and after, the month)."""
    try:
        return calendar_day(iso, timedelta(days=31))
    except DayOutOfRange:
        return f"{what} is out of range"
    except ValueError:
        return f"{what}: write it as {form}"
