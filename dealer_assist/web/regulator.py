"""The regulator's pages: shoes and games by table and day, flags, decisions, export download.

Read-only; every route needs a session of a regulator or a supervisor. `regulator_router`
takes its collaborators as arguments (no import-time state): the tables' records
(`export.views.TableRecords`, wired by bootstrap on the tables' logs, read-only) and the auth
dependency that guards every route, normally `auth.require(*REGULATOR_ROLES, page=True)`.

    GET /regulator                          tables, and the days of a month with shoes
    GET /regulator/{table}/days/{day}       the day's shoes, games, flags and decisions
    GET /regulator/{table}/export.zip       the signed export of ?from=..&to=.. (whole shoes)
"""

from __future__ import annotations

import shutil
import tempfile
from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any
from urllib.parse import quote, urlencode

from fastapi import APIRouter, Depends, Query
from fastapi.responses import FileResponse, HTMLResponse, Response
from starlette.background import BackgroundTask

from dealer_assist.export.keys import KeyProblem
from dealer_assist.export.source import NothingToExport, parse_when
from dealer_assist.export.views import DayView, NotSigning, ShoeView, TableRecords, UnknownTable
from dealer_assist.web.pages import card, esc, page

REGULATOR_ROLES = ("regulator", "supervisor")
_POSITIONS = ("P1", "P2", "P3", "B1", "B2", "B3")


def regulator_router(
    records: TableRecords,
    auth: Callable[..., Any],
    *,
    scratch: Path | None = None,
    today: Callable[[], date] = lambda: datetime.now(UTC).date(),
) -> APIRouter:
    """The /regulator routes. `auth` is a FastAPI dependency returning the session (with
    `.account` and `.csrf`) or raising; it guards every route. Exports are written under
    `scratch` (default: the system's temporary folder) and removed once sent."""
    router = APIRouter(prefix="/regulator", dependencies=[Depends(auth)])
    guard = Depends(auth)  # the session, for the page's header (FastAPI runs `auth` once)

    def render(who: Any, title: str, body: str, status: int = 200) -> HTMLResponse:
        return HTMLResponse(page(title, body, getattr(who, "account", None),
                                 getattr(who, "csrf", None)), status_code=status)

    def problem(who: Any, status: int, text: str) -> HTMLResponse:
        return render(who, "Regulator", f'<p class="notice error">{esc(text)}</p>'
                      f'<p><a href="/regulator">Back to the tables</a></p>', status)

    @router.get("")
    def index(who: Any = guard, table: str = "", month: str = "") -> HTMLResponse:
        tables = records.tables()
        chosen = table or (tables[0] if tables else "")
        try:
            first = date.fromisoformat(f"{month}-01") if month else today().replace(day=1)
        except ValueError:
            return problem(who, 400, f"month {month!r}: write it as YYYY-MM, e.g. 2026-11")
        try:
            days = records.days(chosen, first) if chosen else []
        except UnknownTable as exc:
            return problem(who, 404, str(exc))
        return render(who, "Regulator", _index_body(tables, chosen, first, days))

    @router.get("/{table}/days/{day}")
    def day_page(table: str, day: str, who: Any = guard) -> HTMLResponse:
        try:
            when = date.fromisoformat(day)
        except ValueError:
            return problem(who, 400, f"day {day!r}: write it as YYYY-MM-DD, e.g. 2026-11-29")
        try:
            view = records.day(table, when)
        except UnknownTable as exc:
            return problem(who, 404, str(exc))
        return render(who, f"Table {table} on {when.isoformat()}", _day_body(view))

    @router.get("/{table}/export.zip", response_model=None)
    def export(table: str, start: Annotated[str, Query(alias="from")] = "",
               end: Annotated[str, Query(alias="to")] = "", who: Any = guard) -> Response:
        try:
            begin, until = parse_when(start), parse_when(end)
        except ValueError as exc:
            return problem(who, 400, f"export: {exc}")
        folder = Path(tempfile.mkdtemp(prefix="regulator-", dir=scratch))
        try:
            written = records.export(table, begin, until, folder)
        except UnknownTable as exc:
            shutil.rmtree(folder, ignore_errors=True)
            return problem(who, 404, str(exc))
        except NothingToExport as exc:
            shutil.rmtree(folder, ignore_errors=True)
            return problem(who, 404, str(exc))
        except (NotSigning, KeyProblem) as exc:
            shutil.rmtree(folder, ignore_errors=True)
            return problem(who, 503, f"exports cannot be signed here: {exc}")
        except ValueError as exc:
            shutil.rmtree(folder, ignore_errors=True)
            return problem(who, 400, f"export: {exc}")
        except BaseException:
            shutil.rmtree(folder, ignore_errors=True)
            raise
        return FileResponse(written.path, media_type="application/zip",
                            filename=written.path.name,
                            background=BackgroundTask(shutil.rmtree, folder, True))

    return router


# ---- pages --------------------------------------------------------------------------------

def _day_link(table: str, day: date, text: str | None = None) -> str:
    href = f"/regulator/{quote(table, safe='')}/days/{day.isoformat()}"
    return f'<a href="{esc(href)}">{esc(text or day.isoformat())}</a>'


def _export_link(table: str, start: date, end: date, text: str) -> str:
    query = urlencode({"from": start.isoformat(), "to": end.isoformat()})
    href = f"/regulator/{quote(table, safe='')}/export.zip?{query}"
    return f'<a class="download" href="{esc(href)}">{esc(text)}</a>'


def _index_body(tables: list[str], table: str, month: date, days: list[tuple[date, int]]) -> str:
    if not tables:
        return '<p class="notice error">No table log is configured.</p>'
    choices = "".join(f'<option{" selected" if t == table else ""}>{esc(t)}</option>'
                      for t in tables)
    form = ('<form method="get" action="/regulator" class="filters">'
            f'<label>Table <select name="table">{choices}</select></label>'
            f'<label>Month <input name="month" value="{month.strftime("%Y-%m")}" '
            'pattern="[0-9]{4}-[0-9]{2}" size="7"></label>'
            '<button type="submit">Show</button></form>')
    rows = "".join(f"<tr><td>{_day_link(table, d)}</td><td>{n}</td>"
                   f"<td>{_export_link(table, d, d + timedelta(days=1), 'export')}</td></tr>"
                   for d, n in days)
    listing = (f'<table class="days"><thead><tr><th>Day (UTC)</th><th>Shoes started</th>'
               f'<th>Signed export</th></tr></thead><tbody>{rows}</tbody></table>' if rows else
               f'<p>No shoe started at table {esc(table)} in {month.strftime("%Y-%m")}.</p>')
    return (f'{form}<section><h2>Table {esc(table)}, {month.strftime("%B %Y")}</h2>{listing}'
            f'</section>')


def _day_body(view: DayView) -> str:
    day, table = view.day, view.table
    nav = (f'<p>{_day_link(table, day - timedelta(days=1), "previous day")} &middot; '
           f'<a href="/regulator?table={quote(table)}&amp;month={day.strftime("%Y-%m")}">month</a>'
           f' &middot; {_day_link(table, day + timedelta(days=1), "next day")}</p>')
    link = _export_link(table, day, day + timedelta(days=1),
                        "Download the signed export of this day")
    export = (f'<section><h2>Export</h2><p>{link} (whole shoes; check it with '
              '<code>dealer-assist verify FILE.zip --pubkey KEY</code>).</p>'
              f'<form method="get" action="/regulator/{esc(quote(table, safe=""))}/export.zip" '
              'class="filters"><label>From <input name="from" '
              f'value="{day.isoformat()}T00:00Z"></label><label>To <input name="to" '
              f'value="{(day + timedelta(days=1)).isoformat()}T00:00Z"></label>'
              '<button type="submit">Download</button></form></section>')
    if not view.shoes and not view.decisions:
        return f'{nav}<p>No event at table {esc(table)} on {day.isoformat()} (UTC).</p>{export}'
    summary = "".join(
        f'<tr><td><a href="#shoe-{s.settings["shoe_seq"]}">{esc(s.settings["shoe"])}</a></td>'
        f'<td>{esc(s.settings["started_utc"])}</td><td>{esc(s.settings["variant"])}</td>'
        f'<td>{esc(s.settings["decks"])}</td><td>{len(s.games)}</td><td>{s.flagged_games}</td>'
        f'<td>{s.pending}</td></tr>' for s in view.shoes)
    shoes = (f'<section><h2>Shoes</h2><p>Events seq {view.first_seq}..{view.last_seq}.</p>'
             '<table class="shoes"><thead><tr><th>Shoe</th><th>Started (UTC)</th><th>Variant</th>'
             '<th>Decks</th><th>Games</th><th>Flagged</th><th>Pending review</th></tr></thead>'
             f'<tbody>{summary}</tbody></table></section>')
    games = "".join(_shoe_games(s) for s in view.shoes)
    flags = _flags_table([f for s in view.shoes for f in s.flags])
    return (f'{nav}{shoes}{games}<section><h2>Flags</h2>{flags}</section>'
            f'<section><h2>Decisions</h2>{_decisions_table(view.decisions)}</section>{export}')


def _shoe_games(shoe: ShoeView) -> str:
    s = shoe.settings
    rows = "".join(
        f'<tr class="status-{esc(g["status"])}"><td>{esc(g["game"])}</td>'
        f'<td>{esc(g["start_utc"][11:])}</td>'
        + "".join(f"<td>{card(g[p]) if g[p] else ''}</td>" for p in _POSITIONS)
        + f'<td>{esc(g["player_total"])}</td><td>{esc(g["banker_total"])}</td>'
        f'<td>{esc(g["winner"] or g["status"])}</td><td>{esc(g["winning_bets"])}</td>'
        f'<td>{esc(g["flags"])}</td><td>{esc(g["review"])}</td>'
        f'<td>{esc(_decision(g))}</td></tr>' for g in shoe.games)
    head = "".join(f"<th>{p}</th>" for p in _POSITIONS)
    rules = (f'{esc(s["variant"])}, {esc(s["decks"])} decks, burn after each game: '
             f'{"yes" if s["burn_after_each_game"] else "no"}')
    return (f'<section id="shoe-{s["shoe_seq"]}"><details open><summary><b>Shoe '
            f'{esc(s["shoe"])}</b> (seq {s["shoe_seq"]}, started {esc(s["started_utc"])}; '
            f'{rules})</summary><table class="games"><thead><tr><th>Game</th><th>Bets closed</th>'
            f'{head}<th>P</th><th>B</th><th>Result</th><th>Winning bets</th><th>Flags</th>'
            f'<th>Review</th><th>Decision</th></tr></thead><tbody>{rows}</tbody></table>'
            '</details></section>')


def _decision(game: dict[str, str]) -> str:
    if not game["decision_action"]:
        return ""
    return (f'{game["decision_action"]} by {game["decision_by"]} at {game["decision_at"]}: '
            f'{game["decision_reason"]}')


def _flags_table(flags: list[dict[str, str]]) -> str:
    if not flags:
        return "<p>None.</p>"
    rows = "".join(
        f'<tr class="flag sev-{esc(f["severity"])}"><td>{esc(f["shoe"])}</td>'
        f'<td>{esc(f["game"] or "shoe")}</td><td>{esc(f["code"])}</td>'
        f'<td><span class="sev">{esc(f["severity"])}</span></td><td>{esc(f["detail"])}</td>'
        f'<td>{"yes" if f["decided"] == "true" else ""}</td></tr>' for f in flags)
    return ('<table class="flags"><thead><tr><th>Shoe</th><th>Game</th><th>Flag</th>'
            '<th>Severity</th><th>Detail</th><th>Decided</th></tr></thead>'
            f'<tbody>{rows}</tbody></table>')


def _decisions_table(decisions: list[dict[str, str]]) -> str:
    if not decisions:
        return "<p>None.</p>"
    rows = "".join(
        f'<tr><td>{esc(d["ts"])}</td><td>{esc(d["shoe"])}</td><td>{esc(d["game"])}</td>'
        f'<td>{esc(d["action"])}</td><td>{esc(d["by"])}</td><td>{esc(d["reason"])}</td>'
        f'<td>{esc(" / ".join(x for x in (d["player"], d["banker"]) if x))}</td>'
        f'<td>{esc("yes" if d["applied"] == "true" else d["applied"])}</td></tr>'
        for d in decisions)
    return ('<table class="decisions"><thead><tr><th>Time (UTC)</th><th>Shoe</th><th>Game</th>'
            '<th>Action</th><th>By</th><th>Reason</th><th>Cards</th><th>Applied</th></tr>'
            f'</thead><tbody>{rows}</tbody></table>')
