"""What a person on the floor can act on: the pit's review queue, and the flags and decisions
a game's review page shows beside the game (read from the central store's read models).

A flag waits for a decision when a supervisor can take one, as at the table's console:

- a game's `review` or `void` flag, until a decision on the game, or a `void_shoe` from it or
  an earlier game of its shoe, settles it (services/decisions.py settles the same way);
- a shoe-level `shoe_void` flag (BURN_SHORT: no game holds it), until a `void_shoe` decision
  on its shoe after it. It is decided on the first game dealt once it was raised (the game
  the shoe is void from): the queue lists it on that game, with a `void_shoe` to propose.

`info` flags (LAST_GAME, MULTI_PULL...) need no decision: a game with only those is not in the
queue; they are listed apart (`info`). A shoe-level flag of another severity (BURN_EXCESS)
belongs to no game and no decision takes it at the table: the review page shows it with the
shoe's flags, the queue does not.
"""

from __future__ import annotations

from typing import Any

import psycopg

from dealer_assist.domain.flags import FLAGS, SHOE_VOID

_RANK = "CASE o.severity WHEN 'shoe_void' THEN 3 WHEN 'void' THEN 2 ELSE 1 END"
_SEVERITY = {3: SHOE_VOID, 2: "void", 1: "review"}

#: A flag settled by a `void_shoe` decision on its shoe after it (from its game or earlier).
_VOIDED = ("EXISTS (SELECT 1 FROM decisions d WHERE d.table_id = f.table_id AND "
           "d.shoe_id = f.shoe_id AND d.action = 'void_shoe' AND d.seq > f.seq AND "
           "(f.game IS NULL OR d.game <= f.game))")

#: Each flag waiting for a decision, on the game it is decided on.
_OPEN = f"""
SELECT f.table_id, f.shoe_id, f.seq, f.code, f.severity,
       COALESCE(f.game, (SELECT min(g.game) FROM games g WHERE g.table_id = f.table_id AND
                         g.shoe_id = f.shoe_id AND g.started_seq >= f.seq)) AS game
FROM flags f
WHERE f.shoe_id IS NOT NULL AND f.decided_seq IS NULL
  AND (f.severity = 'shoe_void' OR (f.severity IN ('review', 'void') AND f.game IS NOT NULL))
  AND NOT {_VOIDED}
"""


def queue(conn: psycopg.Connection, limit: int = 500) -> list[dict[str, Any]]:
    """Games waiting for a decision across tables: most severe (a void shoe, then a void game)
    first, then oldest; each with its informational flags apart, the floor request on its way
    to the table, if any, and the dealer who dealt it."""
    rows = conn.execute(
        f"WITH o AS ({_OPEN}) "
        f"SELECT o.table_id, o.shoe_id, o.game, max({_RANK}) AS rank, min(e.ts) AS first_ts, "
        "array_agg(o.code ORDER BY o.seq), "
        "(SELECT array_agg(i.code ORDER BY i.seq) FROM flags i WHERE i.table_id = o.table_id "
        "AND i.shoe_id = o.shoe_id AND i.game = o.game AND i.severity = 'info'), "
        "(SELECT r.status FROM decision_requests r WHERE r.table_id = o.table_id AND "
        "r.shoe_id = o.shoe_id AND r.game = o.game ORDER BY r.id DESC LIMIT 1), "
        "(SELECT g.dealer FROM games g WHERE g.table_id = o.table_id AND "
        "g.shoe_id = o.shoe_id AND g.game = o.game) "
        "FROM o JOIN events e ON e.table_id = o.table_id AND e.seq = o.seq "
        "WHERE o.game IS NOT NULL GROUP BY o.table_id, o.shoe_id, o.game "
        "ORDER BY rank DESC, first_ts, o.table_id, o.game LIMIT %s", (limit,)).fetchall()
    return [{"table": t, "shoe_id": s, "game": g, "severity": _SEVERITY[rank], "since": ts,
             "codes": list(dict.fromkeys(codes)), "info": list(dict.fromkeys(info or ())),
             "request": request, "dealer": dealer}
            for t, s, g, rank, ts, codes, info, request, dealer in rows]


def count(conn: psycopg.Connection) -> int:
    """How many games wait for a decision across tables (the queue's length, uncut)."""
    row = conn.execute(f"WITH o AS ({_OPEN}) SELECT count(*) FROM (SELECT DISTINCT table_id, "
                       "shoe_id, game FROM o WHERE game IS NOT NULL) q").fetchone()
    return int(row[0]) if row else 0


def shoe_flags(conn: psycopg.Connection, table: str, shoe_id: str) -> list[dict[str, Any]]:
    """The flags of a shoe that no game holds, oldest first, each with its rule and whether
    a decision settles it (`decided`: a `shoe_void` one once a `void_shoe` follows it)."""
    rows = conn.execute(
        f"SELECT f.code, f.severity, f.detail, f.decided_seq IS NOT NULL OR {_VOIDED} "
        "FROM flags f WHERE f.table_id = %s AND f.shoe_id = %s AND f.game IS NULL "
        "ORDER BY f.seq", (table, shoe_id)).fetchall()
    return [{"code": code, "severity": severity, "detail": detail,
             "rule": FLAGS[code].rule if code in FLAGS else "",
             "decided": bool(settled) and severity == SHOE_VOID}
            for code, severity, detail, settled in rows]


def settling(conn: psycopg.Connection, table: str, shoe_id: str,
             game: int) -> list[dict[str, Any]]:
    """The decisions the central copy holds on the game, and the `void_shoe` decisions that
    void its shoe from it or an earlier game, oldest first."""
    rows = conn.execute("SELECT seq, ts, game, action, by, reason FROM decisions WHERE "
                        "table_id = %s AND shoe_id = %s AND (game = %s OR "
                        "(action = 'void_shoe' AND game < %s)) ORDER BY seq",
                        (table, shoe_id, game, game)).fetchall()
    return [{"seq": s, "ts": ts, "game": g, "action": a, "by": b, "reason": r}
            for s, ts, g, a, b, r in rows]
