"""Decisions taken on the floor: stored centrally as requests, recorded by the owning table.

The table stays the only writer of its log. A supervisor on the floor makes a *request*
(`decision_requests`: who, when, why, the action, the table, shoe and game); the table's
shipper picks up its own table's waiting requests (row-level security shows it no other),
records each in the table's log through the live table, exactly as a decision taken at the
table's console, and marks it `recorded` with the local seq; when that decision event ships
back and is folded, the floor service marks the request `done` (floor/fold.py). So a request
taken while the table is unreachable waits, and is recorded when the table is back.

A request's status:

    waiting          the table has not picked it up yet (it may be unreachable)
    recorded         in the table's log; shipping back to the central store
    done             the decision event is in the central copy of the table's log
    refused          the table refused it (the answer says why: a correction the rules refuse...)
    already_decided  the game was decided at the table first: not recorded twice

"Already decided" is checked twice: against the central copy (what has shipped), then by the
live table itself, which checks and appends under its lock (services/decisions.py), so a
decision taken at the table's console a few milliseconds before, not shipped yet, is not
recorded a second time either. Both settle a game as the table's console does: a decision on
the game, or a `void_shoe` from it or an earlier game of its shoe, settles it; a `void_shoe`
(what decides a shoe-level void flag such as BURN_SHORT: the request names the shoe and the
game it voids from) is settled only by another `void_shoe` from that game or an earlier one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg

from dealer_assist.domain.cards import CardError, parse_card
from dealer_assist.domain.events import DECISION_ACTIONS, MAX_REASON

#: The table's answer to a request is kept (and shown on the pit's pages) cut to this length.
MAX_ANSWER = 500
STATUS_TEXT = {
    "waiting": "waiting for the table",
    "recorded": "recorded at the table, shipping back",
    "done": "recorded in the table's log",
    "refused": "refused by the table",
    "already_decided": "already decided at the table",
}
OPEN = ("waiting", "recorded")

#: The live table's `decide(by, game, action, reason, *, shoe_id, player, banker) -> seq`;
#: it raises ValueError (services.live_table.Refused) with the reason it refuses, one with a
#: `decided` attribute, (seq, by, reason) of the decision that settles the game, when the
#: game is already decided (services.live_table.AlreadyDecided).
Decide = Callable[..., int]


class RequestRefused(ValueError):
    """A request the floor does not store; the message says why (shown to the supervisor)."""


@dataclass(frozen=True)
class DecisionRequest:
    id: int
    table: str
    shoe_id: str
    game: int
    action: str
    player: tuple[str, ...]
    banker: tuple[str, ...]
    reason: str
    by: str
    at: datetime
    status: str
    answer: str | None
    local_seq: int | None

    @property
    def status_text(self) -> str:
        return STATUS_TEXT.get(self.status, self.status)

    def as_dict(self) -> dict[str, Any]:
        return {"id": self.id, "table": self.table, "shoe_id": self.shoe_id, "game": self.game,
                "action": self.action, "player": list(self.player),
                "banker": list(self.banker), "reason": self.reason, "by": self.by,
                "at": self.at.isoformat(), "status": self.status,
                "status_text": self.status_text, "answer": self.answer,
                "local_seq": self.local_seq}


_COLUMNS = ("id, table_id, shoe_id, game, action, player, banker, reason, by, at, status, "
            "answer, local_seq")


def _request(row: Sequence[Any]) -> DecisionRequest:
    (id_, table, shoe_id, game, action, player, banker, reason, by, at, status, answer,
     local_seq) = row
    return DecisionRequest(id_, table, shoe_id, game, action, tuple(player or ()),
                           tuple(banker or ()), reason, by, at, status, answer, local_seq)


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


def decided(conn: psycopg.Connection, table: str, shoe_id: str, game: int,
            action: str = "accept") -> tuple[int, str, str] | None:
    """The first decision (seq, by, reason) the central copy holds that settles `action` on
    the game (module docstring), or None."""
    row = conn.execute("SELECT seq, by, reason FROM decisions WHERE table_id = %s AND "
                       "shoe_id = %s AND ((action = 'void_shoe' AND game <= %s) OR "
                       "(game = %s AND %s <> 'void_shoe')) ORDER BY seq LIMIT 1",
                       (table, shoe_id, game, game, action)).fetchone()
    return (int(row[0]), str(row[1]), str(row[2])) if row else None


def requests(conn: psycopg.Connection, table: str | None = None, *, open_only: bool = False,
             limit: int = 200) -> list[DecisionRequest]:
    """Requests, newest first (one table's, or every table's the role may see)."""
    where, args = [], []
    if table is not None:
        where.append("table_id = %s")
        args.append(table)
    if open_only:
        where.append("status IN ('waiting', 'recorded')")
    sql = f"SELECT {_COLUMNS} FROM decision_requests"
    if where:
        sql += " WHERE " + " AND ".join(where)
    rows = conn.execute(sql + " ORDER BY id DESC LIMIT %s", (*args, limit)).fetchall()
    return [_request(row) for row in rows]


def waiting(conn: psycopg.Connection, table: str) -> list[DecisionRequest]:
    """The table's requests not yet picked up, oldest first."""
    rows = conn.execute(f"SELECT {_COLUMNS} FROM decision_requests WHERE table_id = %s AND "
                        "status = 'waiting' ORDER BY id", (table,)).fetchall()
    return [_request(row) for row in rows]


def answer(conn: psycopg.Connection, request: int, status: str, text: str,
           local_seq: int | None = None) -> None:
    """The table's answer to a request (in its own transaction)."""
    conn.execute("UPDATE decision_requests SET status = %s, answer = %s, local_seq = %s, "
                 "answered_at = now() WHERE id = %s AND status = 'waiting'",
                 (status, text[:MAX_ANSWER], local_seq, request))
    conn.commit()


def take_requests(conn: psycopg.Connection, table: str, decide: Decide) -> int:
    """The table side: record each waiting request of `table` through `decide` (the live
    table), or answer why not; the number recorded. Call it after shipping up to the local
    head, so that the central `decisions` show every decision the table has taken."""
    recorded = 0
    for request in waiting(conn, table):
        done = decided(conn, table, request.shoe_id, request.game, request.action)
        if done is not None:
            seq, by, reason = done
            if (by, reason) == (request.by, request.reason):  # ours, recorded before a restart
                # (folded already: the floor service marks it done)
                answer(conn, request.id, "recorded", f"recorded at seq {seq}", seq)
            else:
                _already_decided(conn, request, done)
            continue
        try:
            seq = decide(request.by, request.game, request.action, request.reason,
                         shoe_id=request.shoe_id, player=list(request.player),
                         banker=list(request.banker))
        except ValueError as e:
            prior = getattr(e, "decided", None)  # decided at the table, not shipped yet
            if prior is None:
                answer(conn, request.id, "refused", str(e))
            elif prior[0] is not None and (prior[1], prior[2]) == (request.by, request.reason):
                # ours, recorded before the answer was lost: it ships and is marked done
                answer(conn, request.id, "recorded", f"recorded at seq {prior[0]}; shipping",
                       prior[0])
            else:
                _already_decided(conn, request, prior)
            continue
        answer(conn, request.id, "recorded", f"recorded at seq {seq}; shipping", seq)
        recorded += 1
    conn.commit()
    return recorded


def _already_decided(conn: psycopg.Connection, request: DecisionRequest,
                     prior: tuple[int | None, str | None, str | None]) -> None:
    seq, by, reason = prior
    text = "already decided at the table" if seq is None else (
        f"already decided at the table by {by} (seq {seq}): {reason}")
    answer(conn, request.id, "already_decided", text)
