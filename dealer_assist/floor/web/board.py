"""What the pit's pages show, read from the central store's read models (never a log re-fold,
except the one shoe a review page replays to show a game as the table's console does).

- `tables`: every registered table with its status, link health, shipping lag (the last
  stored event's arrival minus its event time), last event age, open floor requests, the flags
  waiting for a decision (`open_flags`: a person can act on each) and the current shoe's
  informational ones apart (`info_flags`: they need no decision, and never make a row red);
- `alarms`: the integrity alarms, newest first;
- `review`: one game as the table's console shows it (services.public_view.review_item);
- `dealers`, `shifts`: flags per dealer across the pit's tables, and per shift (a dealer's
  unbroken run of games at one table), from the games read model's `dealer` (migration 8).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import psycopg

from dealer_assist.domain.events import TraceError, parse_event
from dealer_assist.domain.flags import UNCHARGED
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.public_view import find_game, review_item

#: How long without an event before a table's row says it is quiet.
QUIET_S = 120.0


def _age(ts: str | None, now: datetime) -> float | None:
    if not ts:
        return None
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError:
        return None
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=UTC)
    return max((now - moment).total_seconds(), 0.0)


def tables(conn: psycopg.Connection, now: datetime | None = None) -> list[dict[str, Any]]:
    """Every table of the floor with what the pit board shows of it."""
    now = now or datetime.now(UTC)
    rows = conn.execute(
        "SELECT t.table_id, s.variant, s.shoe_id, s.game, s.last_result, "
        "COALESCE(s.open_flags, 0), COALESCE(s.info_flags, 0), s.shoe_link, s.camera_link, s.last_seq, s.last_ts, "
        "s.received_at, (SELECT count(*) FROM decision_requests r WHERE r.table_id = t.table_id "
        "AND r.status = 'waiting'), (SELECT count(*) FROM integrity_alarms a "
        "WHERE a.table_id = t.table_id) FROM floor_tables t "
        "LEFT JOIN table_status s ON s.table_id = t.table_id ORDER BY t.table_id").fetchall()
    out = []
    for (table, variant, shoe, game, result, flags, info, shoe_link, camera_link, seq, ts,
         received, waiting, alarms) in rows:
        age = _age(ts, now)
        arrived = _age(ts, received) if received is not None else None
        out.append({
            "table": table, "variant": variant, "shoe_id": shoe, "game": game,
            "last_result": result, "open_flags": flags, "info_flags": info,
            "shoe_link": shoe_link or "unknown", "camera_link": camera_link or "unknown", "seq": seq or 0, "last_ts": ts,
            "last_event_age_s": None if age is None else round(age, 1),
            "shipping_lag_s": None if arrived is None else round(arrived, 1),
            "quiet": age is None or age > QUIET_S, "waiting_requests": waiting,
            "alarms": alarms,
        })
    return out


def alarms(conn: psycopg.Connection, limit: int = 20) -> list[dict[str, Any]]:
    rows = conn.execute("SELECT id, table_id, seq, found, at FROM integrity_alarms "
                        "ORDER BY id DESC LIMIT %s", (limit,)).fetchall()
    return [{"id": i, "table": t, "seq": s, "found": f, "at": a.isoformat(timespec="seconds")}
            for i, t, s, f, a in rows]


#: The flags no dealer is charged with, for the figures per dealer and shift.
_UNCHARGED = sorted(UNCHARGED)
_RANK = "CASE f.severity WHEN 'void' THEN 2 WHEN 'review' THEN 1 ELSE 0 END"


def review(conn: psycopg.Connection, table: str, shoe_id: str, game: int,
           paytables: dict[str, PayTable]) -> dict[str, Any] | None:
    """The game as the table's console shows it, from the central copy of its shoe; None
    when the central store has no such game."""
    row = conn.execute("SELECT started_seq, ended_seq FROM shoes WHERE table_id = %s AND "
                       "shoe_id = %s ORDER BY started_seq DESC LIMIT 1",
                       (table, shoe_id)).fetchone()
    if row is None:
        return None
    start, end = row
    # the shoe's events, and the decisions on it taken after it ended (a review comes later)
    bodies = conn.execute("SELECT body FROM events WHERE table_id = %s AND seq >= %s AND "
                          "(seq <= %s OR seq IN (SELECT seq FROM decisions WHERE table_id = %s "
                          "AND shoe_id = %s)) ORDER BY seq",
                          (table, start, end if end is not None else 2**62, table,
                           shoe_id)).fetchall()
    machine = TableMachine(record=False)
    for (body,) in bodies:
        try:
            machine.apply(parse_event(json.loads(body)))
        except (TraceError, ValueError):
            continue
    found = find_game(machine, shoe_id, game)
    if found is None:
        return None
    shoe, g = found
    paytable = paytables.get(shoe.house.variant)
    if paytable is None:
        return None
    return {**review_item(shoe, g, paytable), "table": table}


def dealer_of(conn: psycopg.Connection, table: str, shoe_id: str, game: int) -> str | None:
    """The dealer the games read model names for a game (None: none signed in, or unknown)."""
    row = conn.execute("SELECT dealer FROM games WHERE table_id = %s AND shoe_id = %s AND "
                       "game = %s", (table, shoe_id, game)).fetchone()
    return None if row is None else row[0]


#: Each game with its flags charged to its dealer (what the system caused, INTERRUPTED, is
#: not: domain.flags.UNCHARGED), those waiting for a decision, and where its dealer's shift
#: began (a game whose dealer differs from the game before it at its table starts a shift).
_GAMES = f"""
WITH g AS (
    SELECT g.table_id, g.started_seq, g.started_ts, g.dealer,
           count(f.code) FILTER (WHERE f.code <> ALL(%(uncharged)s)) AS flags,
           count(f.code) FILTER (WHERE f.decided_seq IS NULL AND {_RANK} > 0
                                 AND f.code <> ALL(%(uncharged)s)) AS waiting
    FROM games g
    LEFT JOIN flags f ON f.table_id = g.table_id AND f.shoe_id = g.shoe_id AND f.game = g.game
    WHERE left(g.started_ts, 10) BETWEEN %(first)s AND %(last)s
    GROUP BY g.table_id, g.shoe_id, g.game
), marked AS (
    SELECT *, CASE WHEN dealer IS NOT DISTINCT FROM lag(dealer) OVER w THEN 0 ELSE 1 END
           AS starts
    FROM g WINDOW w AS (PARTITION BY table_id ORDER BY started_seq)
), games AS (
    SELECT *, sum(starts) OVER (PARTITION BY table_id ORDER BY started_seq) AS shift
    FROM marked
)
"""

#: The whole calendar, for a span not limited at one end.
FIRST_DAY, LAST_DAY = "0001-01-01", "9999-12-31"


def dealers(conn: psycopg.Connection, first: str = FIRST_DAY,
            last: str = LAST_DAY) -> list[dict[str, Any]]:
    """Each dealer's games across the pit's tables from day `first` to day `last` (UTC,
    YYYY-MM-DD): games, flagged games, flags, flags waiting for a decision, tables, flag rate;
    the games dealt with no dealer signed in under None, last."""
    rows = conn.execute(
        _GAMES + "SELECT dealer, count(*), count(*) FILTER (WHERE flags > 0), sum(flags), "
        "sum(waiting), array_agg(DISTINCT table_id ORDER BY table_id) FROM games "
        "GROUP BY dealer ORDER BY dealer NULLS LAST",
        {"first": first, "last": last, "uncharged": _UNCHARGED}).fetchall()
    return [{"dealer": d, "games": n, "flagged": flagged, "flags": int(flags),
             "waiting": int(waiting), "tables": list(tables),
             "rate": flagged / n if n else 0.0}
            for d, n, flagged, flags, waiting, tables in rows]


def shifts(conn: psycopg.Connection, first: str = FIRST_DAY, last: str = LAST_DAY,
           limit: int = 200) -> list[dict[str, Any]]:
    """The shifts from day `first` to day `last`, newest first: table, dealer, first and last
    game's start, games, flagged games, flags, flags waiting for a decision."""
    rows = conn.execute(
        _GAMES + "SELECT table_id, dealer, min(started_ts), max(started_ts), count(*), "
        "count(*) FILTER (WHERE flags > 0), sum(flags), sum(waiting) FROM games "
        "GROUP BY table_id, shift, dealer ORDER BY max(started_ts) DESC, table_id "
        "LIMIT %(limit)s", {"first": first, "last": last, "limit": limit,
                              "uncharged": _UNCHARGED}).fetchall()
    return [{"table": t, "dealer": d, "start": start, "end": end, "games": n,
             "flagged": flagged, "flags": int(flags), "waiting": int(waiting)}
            for t, d, start, end, n, flagged, flags, waiting in rows]
