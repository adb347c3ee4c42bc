"""The table's side of the floor's decisions: it records the floor's requests in its own log.

The table stays the only writer of its log. A supervisor on the floor stores a *request*
(floor/requests.py); after each round of shipping, the table's shipper picks up its own table's
waiting requests (row-level security shows it no other), records each in the table's log
through the live table, exactly as a decision taken at the table's console, and answers it:
`recorded` with the local seq, `refused` with why, or `already_decided`. When that decision
event ships back and is folded, the floor service marks the request `done` (floor/fold.py). So
a request taken while the table is unreachable waits, and is recorded when the table is back.

"Already decided" is checked twice: against the central copy (what has shipped,
floor_wire.decided), then by the live table itself, which checks and appends under its lock
(services/decisions.py), so a decision taken at the table's console a few milliseconds before,
not shipped yet, is not recorded a second time either.
"""

from __future__ import annotations

from collections.abc import Callable

import psycopg

from dealer_assist.floor_wire import REQUEST_COLUMNS, DecisionRequest, decided, request_of

#: The table's answer to a request is kept (and shown on the pit's pages) cut to this length.
MAX_ANSWER = 500

#: The live table's `decide(by, game, action, reason, *, shoe_id, player, banker) -> seq`;
#: it raises ValueError (services.refusals.Refused) with the reason it refuses, one with a
#: `decided` attribute, (seq, by, reason) of the decision that settles the game, when the
#: game is already decided (services.refusals.AlreadyDecided).
Decide = Callable[..., int]


def waiting(conn: psycopg.Connection, table: str) -> list[DecisionRequest]:
    """The table's requests not yet picked up, oldest first."""
    rows = conn.execute(f"SELECT {REQUEST_COLUMNS} FROM decision_requests WHERE table_id = %s "
                        "AND status = 'waiting' ORDER BY id", (table,)).fetchall()
    return [request_of(row) for row in rows]


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
