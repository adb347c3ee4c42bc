"""Decisions taken on the floor: stored centrally as requests, recorded by the owning table.

The table stays the only writer of its log. A supervisor on the floor makes a *request*
(`ask`: who, when, why, the action, the table, shoe and game, in `decision_requests`); the
table's shipper records it in the table's log and answers it (shipping/requests.py); when that
decision event ships back and is folded, the floor service marks the request `done`
(floor/fold.py). A request's statuses and what settles a game are the contract both sides read
(floor_wire.py): a decision on the game, or a `void_shoe` from it or an earlier game of its
shoe, settles it; a `void_shoe` (what decides a shoe-level void flag such as BURN_SHORT: the
request names the shoe and the game it voids from) is settled only by another `void_shoe` from
that game or an earlier one. The pit asks only for a game the central copy has not settled; the
table checks again when it records.
"""

from __future__ import annotations

from collections.abc import Sequence

import psycopg

from dealer_assist.domain.cards import CardError, parse_card
from dealer_assist.domain.events import DECISION_ACTIONS, MAX_REASON
from dealer_assist.floor_wire import REQUEST_COLUMNS, DecisionRequest, decided, request_of


class RequestRefused(ValueError):
    """A request the floor does not store; the message says why (shown to the supervisor)."""


def clean_reason(reason: str) -> str:
    """A reason as the table logs it (runs of white space made one space)."""
    return " ".join(str(reason).split())


def ask(conn: psycopg.Connection, *, table: str, shoe_id: str, game: int, action: str,
        reason: str, by: str, player: Sequence[str] = (), banker: Sequence[str] = ()) -> int:
    """Store a decision request for `table`'s game; its id. RequestRefused says why not: an
    unknown game, a game already decided at the table, a request for it already waiting."""
    if action not in DECISION_ACTIONS:
        raise RequestRefused(f"decision {action[:40]!r}: one of {', '.join(DECISION_ACTIONS)}")
    reason = clean_reason(reason)
    if not reason:
        raise RequestRefused("a decision needs a reason")
    if len(reason) > MAX_REASON:
        raise RequestRefused(f"a reason has at most {MAX_REASON} characters")
    if action == "correct":
        try:
            player = [parse_card(c) for c in player]
            banker = [parse_card(c) for c in banker]
        except CardError as e:
            raise RequestRefused(f"correction: {e}") from None
    else:
        player, banker = [], []
    with conn.transaction():
        # one request at a time per game: the lock holds two supervisors' clicks apart
        conn.execute("SELECT pg_advisory_xact_lock(hashtext(%s))",
                     (f"{table}/{shoe_id}/{game}",))
        if not conn.execute("SELECT 1 FROM games WHERE table_id = %s AND shoe_id = %s AND "
                            "game = %s", (table, shoe_id, game)).fetchone():
            raise RequestRefused(f"table {table} has no game {game} in shoe {shoe_id}")
        done = decided(conn, table, shoe_id, game, action)
        if done is not None:
            raise RequestRefused(f"game {game} was already decided at the table by {done[1]}: "
                                 f"{done[2]}")
        waiting = conn.execute(
            "SELECT id FROM decision_requests WHERE table_id = %s AND shoe_id = %s AND "
            "game = %s AND status IN ('waiting', 'recorded')", (table, shoe_id, game)).fetchone()
        if waiting:
            raise RequestRefused(f"a floor decision on game {game} is already on its way to "
                                 f"the table (request {waiting[0]})")
        row = conn.execute(
            "INSERT INTO decision_requests (table_id, shoe_id, game, action, player, banker, "
            "reason, by) VALUES (%s, %s, %s, %s, %s, %s, %s, %s) RETURNING id",
            (table, shoe_id, game, action, list(player), list(banker), reason, by)).fetchone()
    assert row is not None
    return int(row[0])


def requests(conn: psycopg.Connection, table: str | None = None, *, open_only: bool = False,
             limit: int = 200) -> list[DecisionRequest]:
    """Requests, newest first (one table's, or every table's the role may see)."""
    where, args = [], []
    if table is not None:
        where.append("table_id = %s")
        args.append(table)
    if open_only:
        where.append("status IN ('waiting', 'recorded')")
    sql = f"SELECT {REQUEST_COLUMNS} FROM decision_requests"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = conn.execute(sql + " ORDER BY id DESC LIMIT %s", (*args, limit)).fetchall()
    return [request_of(row) for row in rows]
