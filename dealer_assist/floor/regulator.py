"""The floor's regulator pages: every table, the days with games, flags and alarms, and the
signed floor export of chosen tables over a range of days.

Read-only, from the central store's read models (never a log re-fold); every route needs the
session the guard gives (the floor app passes `require("regulator", page=True)`).

    GET /regulator                  every table (head, shoes, games, open flags, alarms), the
                                    days with games, the export form
    GET /regulator/days/{day}       that UTC day's games across tables, with their dealers and
                                    flags
    GET /regulator/flags            flags (?table=), newest first, with their game's dealer and
                                    their decisions; alarms
    GET /regulator/export.zip       ?tables=T1&tables=T2&from=DAY&to=DAY: the floor export
                                    (floor/export.py), signed with the key that
                                    DEALER_ASSIST_SIGNING_KEY names; `to` is the last day included

Days are UTC calendar days, as the central store keeps event times.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, time, timedelta
from pathlib import Path
from typing import Annotated, Any

import psycopg
from fastapi import APIRouter, Depends, Query, Request
from fastapi.responses import HTMLResponse, Response
from psycopg_pool import ConnectionPool

from dealer_assist.config.paytables import load_paytables
from dealer_assist.domain.excerpt import shown
from dealer_assist.export.source import NothingToExport
from dealer_assist.export.writer import LogTampered
from dealer_assist.floor.export import write_floor_export
from dealer_assist.floor.web.pages import message, render
from dealer_assist.regulator.days import calendar_day
from dealer_assist.regulator.download import Refusal, zip_download
from dealer_assist.signing_keys import KeyProblem, load_private_key, signing_key_path

#: How many rows a list page shows at most (newest first).
LIMIT = 500


def floor_regulator_router(pool: ConnectionPool, guard: Callable[[Request], Any], *,
                           signing_key: Path | None = None,
                           scratch: Path | None = None) -> APIRouter:
    """The /regulator routes of the floor service over the central store's `pool`; `guard`
    (a FastAPI dependency giving the session or raising) guards every route. Exports are
    signed with `signing_key` (default: the file DEALER_ASSIST_SIGNING_KEY names, read at each
    export) and written under `scratch` (default: the system's temporary folder)."""
    router = APIRouter(prefix="/regulator", dependencies=[Depends(guard)])
    who_is = Depends(guard)

    def problem(request: Request, who: Any, status: int, text: str) -> HTMLResponse:
        return message(request, "Regulator", text, who, status,
                       back=("/regulator", "Back to the floor"))

    @router.get("")
    def index(request: Request, who: Any = who_is) -> HTMLResponse:
        with pool.connection() as conn:
            tables = _tables(conn)
            days = _days(conn)
        latest = days[0]["day"] if days else datetime.now(UTC).date().isoformat()
        return render(request, "regulator/index.html", who, tables=tables, days=days,
                      day_from=latest, day_to=latest)

    @router.get("/days/{day}")
    def day_page(request: Request, day: str, who: Any = who_is) -> HTMLResponse:
        when = _day(day)
        if when is None:
            return problem(request, who, 400, f"day {shown(day)}: write it as YYYY-MM-DD, "
                           "e.g. 2026-11-29")
        start = when.isoformat()
        end = (when + timedelta(days=1)).isoformat()
        with pool.connection() as conn:
            games = _rows(conn, "SELECT g.table_id, g.shoe_id, g.game, g.dealer, g.started_ts, "
                          "g.winner, "
                          "g.completed_seq IS NOT NULL, (SELECT string_agg(f.code, ', ' "
                          "ORDER BY f.seq) FROM flags f WHERE f.table_id = g.table_id AND "
                          "f.shoe_id = g.shoe_id AND f.game = g.game) FROM games g "
                          "WHERE g.started_ts >= %s AND g.started_ts < %s "
                          "ORDER BY g.table_id, g.started_seq LIMIT %s",
                          ("table", "shoe", "game", "dealer", "started", "winner", "complete",
                           "flags"),
                          (start, end, LIMIT * 10))
        return render(request, "regulator/day.html", who, day=when, games=games,
                      limit=LIMIT * 10, prev=when - timedelta(days=1),
                      next=when + timedelta(days=1))

    @router.get("/flags")
    def flags_page(request: Request, table: str = "", who: Any = who_is) -> HTMLResponse:
        with pool.connection() as conn:
            flags = _rows(conn, "SELECT f.table_id, f.seq, e.ts, f.shoe_id, f.game, g.dealer, "
                          "f.code, f.severity, f.detail, d.seq, d.action, d.by, d.reason "
                          "FROM flags f JOIN events e ON e.table_id = f.table_id AND e.seq = f.seq "
                          "LEFT JOIN games g ON g.table_id = f.table_id AND g.shoe_id = f.shoe_id "
                          "AND g.game = f.game "
                          "LEFT JOIN decisions d ON d.table_id = f.table_id "
                          "AND d.seq = f.decided_seq WHERE (%s = '' OR f.table_id = %s) "
                          "ORDER BY e.ts DESC, f.seq DESC LIMIT %s",
                          ("table", "seq", "ts", "shoe", "game", "dealer", "code", "severity",
                           "detail", "decided_seq", "action", "by", "reason"),
                          (table, table, LIMIT))
            alarms = [{**a, "at": _utc(a["at"])} for a in _rows(
                conn, "SELECT table_id, seq, found, at FROM integrity_alarms "
                "WHERE (%s = '' OR table_id = %s) ORDER BY id DESC LIMIT %s",
                ("table", "seq", "found", "at"), (table, table, LIMIT))]
            names = [t["table"] for t in _tables(conn)]
        return render(request, "regulator/flags.html", who, flags=flags, alarms=alarms,
                      table=table, tables=names, limit=LIMIT)

    @router.get("/export.zip", response_model=None)
    def export(request: Request, who: Any = who_is,
               tables: Annotated[list[str] | None, Query()] = None,
               start: Annotated[str, Query(alias="from")] = "",
               end: Annotated[str, Query(alias="to")] = "") -> Response:
        first, last = _day(start), _day(end)
        if first is None or last is None:
            return problem(request, who, 400, f"export: the days {shown(start)} to "
                           f"{shown(end)}: write each as YYYY-MM-DD, e.g. 2026-11-29")
        if last < first:
            return problem(request, who, 400, f"export: {last} is before {first}")
        if not tables:
            return problem(request, who, 400, "export: choose at least one table")
        begin = datetime.combine(first, time(), UTC)
        until = datetime.combine(last + timedelta(days=1), time(), UTC)
        try:
            key = load_private_key(signing_key or signing_key_path(None))
        except KeyProblem as exc:
            return problem(request, who, 503, f"floor exports cannot be signed here: {exc}")

        def write(folder: Path) -> Path:
            out = folder / f"floor-{first}-to-{last}.zip"
            with pool.connection() as conn:
                write_floor_export(conn, tables, begin, until, out=out, key=key,
                                   paytables=load_paytables())
            return out

        return zip_download(write, _EXPORT_REFUSALS,
                            lambda status, text: problem(request, who, status, text),
                            prefix="floor-regulator-", scratch=scratch)

    return router


#: What a floor export download answers with a page instead of a zip, in this order.
_EXPORT_REFUSALS = (
    Refusal(NothingToExport, 404, "export: {}"),
    Refusal(LogTampered, 409, "export refused, nothing signed: {}"),
    Refusal(ValueError, 400, "export: {}"),
)


def _day(text: str) -> date | None:
    """The UTC day `text` names, a day inside the calendar's ends; None if it names none."""
    try:
        return calendar_day(text.strip(), timedelta(days=1))
    except ValueError:
        return None


def _rows(conn: psycopg.Connection, sql: str, names: tuple[str, ...],
          params: tuple[Any, ...] = ()) -> list[dict[str, Any]]:
    return [dict(zip(names, row, strict=True)) for row in conn.execute(sql, params).fetchall()]


def _utc(moment: datetime | None) -> str:
    """A stored time as the pages show times: UTC, to the second."""
    return moment.astimezone(UTC).strftime("%Y-%m-%d %H:%M:%SZ") if moment else ""


def _tables(conn: psycopg.Connection) -> list[dict[str, Any]]:
    rows = _rows(conn, "SELECT t.table_id, h.seq, h.hash, h.at, s.last_ts, "
                 "(SELECT count(*) FROM shoes x WHERE x.table_id = t.table_id), "
                 "(SELECT count(*) FROM games g WHERE g.table_id = t.table_id), "
                 "COALESCE(s.open_flags, 0), "
                 "(SELECT count(*) FROM integrity_alarms a WHERE a.table_id = t.table_id) "
                 "FROM floor_tables t LEFT JOIN table_heads h ON h.table_id = t.table_id "
                 "LEFT JOIN table_status s ON s.table_id = t.table_id ORDER BY t.table_id",
                 ("table", "seq", "hash", "at", "last_ts", "shoes", "games", "open_flags",
                  "alarms"))
    return [{**row, "at": _utc(row["at"])} for row in rows]


def _days(conn: psycopg.Connection) -> list[dict[str, Any]]:
    """The UTC days with games, newest first (at most a year of them)."""
    return _rows(conn, "SELECT left(started_ts, 10) AS day, count(DISTINCT table_id), "
                 "count(*) FROM games GROUP BY day ORDER BY day DESC LIMIT 366",
                 ("day", "tables", "games"))
