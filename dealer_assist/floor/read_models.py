"""The floor's read models, kept in PostgreSQL as each table's events arrive.

`table_status` (last seq and event time, when it arrived, current shoe, game and variant, the
last result, open flags, the shoe's and camera's link), `games`, `flags`, `shoes` and
`decisions` per table: the pit and floor pages read these and never re-fold a log. A decision
event that a floor request asked for (`decision_requests.local_seq`) marks the request done. The events are
folded by the domain's own table machine; after a restart (or an error) the machine is rebuilt
from the central copy of the current shoe only, since a new shoe starts the machine afresh.
"""

from __future__ import annotations

import json
from typing import Any

import psycopg

from dealer_assist.domain.events import TraceError, parse_event
from dealer_assist.domain.report import winner
from dealer_assist.domain.table import TableMachine

#: The link columns of `table_status`, by the device a `link_status` event names.
LINKS = {"shoe": "shoe_link", "camera": "camera_link"}


class FloorModels:
    """Folds one table's stored events into its rows of the read models (on the caller's
    transaction); `reset()` after a rollback so the next fold starts from the database."""

    def __init__(self, table: str) -> None:
        self.table = table
        self._machine: TableMachine | None = None

    def reset(self) -> None:
        self._machine = None

    def fold(self, conn: psycopg.Connection, events: list[tuple[int, dict[str, Any]]]) -> None:
        if not events:
            return
        machine = self._machine or self._rebuild(conn, before=events[0][0])
        for seq, event in events:
            self._apply(conn, machine, seq, event)
        last_seq, last = events[-1]
        conn.execute(
            "INSERT INTO table_status (table_id, last_seq, last_ts) VALUES (%s, %s, %s) "
            "ON CONFLICT (table_id) DO UPDATE SET last_seq = EXCLUDED.last_seq, "
            "last_ts = EXCLUDED.last_ts, received_at = now(), open_flags = (SELECT count(*) FROM flags "
            "WHERE table_id = EXCLUDED.table_id AND decided_seq IS NULL)",
            (self.table, last_seq, last["ts"]))
        self._machine = machine

    def _rebuild(self, conn: psycopg.Connection, before: int) -> TableMachine:
        """A machine at the state the stored events before seq `before` leave (the batch being
        folded is already inserted, in the same transaction), replayed from the current shoe."""
        machine = TableMachine(record=False)
        row = conn.execute("SELECT shoe_seq FROM table_status WHERE table_id = %s",
                           (self.table,)).fetchone()
        if row and row[0] is not None:
            rows = conn.execute("SELECT body FROM events WHERE table_id = %s AND seq >= %s "
                                "AND seq < %s ORDER BY seq", (self.table, row[0], before))
            for (body,) in rows.fetchall():
                _apply_quietly(machine, json.loads(body))
        machine.record = True
        return machine

    def _apply(self, conn: psycopg.Connection, machine: TableMachine, seq: int,
               event: dict[str, Any]) -> None:
        kind_of_event = event.get("type")
        if kind_of_event == "link_status" and event.get("src") in LINKS:
            column = LINKS[str(event["src"])]
            conn.execute(
                f"INSERT INTO table_status (table_id, last_seq, last_ts, {column}) "
                f"VALUES (%s, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE SET "
                f"{column} = EXCLUDED.{column}",
                (self.table, seq, event["ts"], str(event.get("status", ""))[:40]))
        elif kind_of_event == "decision":
            self._decision(conn, machine, seq, event)
        for kind, shoe_id, game, data in _apply_quietly(machine, event):
            if kind == "shoe_started":
                variant = getattr(data, "variant", "standard")
                conn.execute(
                    "INSERT INTO table_status (table_id, last_seq, last_ts, shoe_id, shoe_seq, "
                    "variant) VALUES (%s, %s, %s, %s, %s, %s) ON CONFLICT (table_id) DO UPDATE "
                    "SET shoe_id = EXCLUDED.shoe_id, shoe_seq = EXCLUDED.shoe_seq, game = NULL, "
                    "variant = EXCLUDED.variant, last_result = NULL",
                    (self.table, seq, event["ts"], shoe_id, seq, variant))
                conn.execute(
                    "INSERT INTO shoes (table_id, shoe_id, variant, started_seq, started_ts) "
                    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (self.table, shoe_id, variant, seq, event["ts"]))
            elif kind == "shoe_finished":
                conn.execute("UPDATE shoes SET ended_seq = %s WHERE table_id = %s AND "
                             "started_seq = (SELECT shoe_seq FROM table_status WHERE "
                             "table_id = %s) AND ended_seq IS NULL",
                             (seq, self.table, self.table))
            elif kind == "game_started":
                conn.execute(
                    "INSERT INTO games (table_id, shoe_id, game, started_seq, started_ts) "
                    "VALUES (%s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (self.table, shoe_id, game, seq, event["ts"]))
                conn.execute("UPDATE table_status SET game = %s WHERE table_id = %s",
                             (game, self.table))
            elif kind == "game_completed":
                found = machine.shoe.game(game) if machine.shoe and game else None
                won = (winner(found) if found else None) or "void"
                conn.execute("UPDATE games SET completed_seq = %s, winner = %s WHERE "
                             "table_id = %s AND shoe_id = %s AND game = %s",
                             (seq, won, self.table, shoe_id, game))
                conn.execute("UPDATE table_status SET last_result = %s WHERE table_id = %s",
                             (f"game {game}: {won}", self.table))
            elif kind == "flag_raised":
                conn.execute(
                    "INSERT INTO flags (table_id, seq, shoe_id, game, code, severity, detail) "
                    "VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                    (self.table, seq, shoe_id, game, data.code, data.severity, data.detail))
            elif kind == "decision_applied":
                conn.execute("UPDATE flags SET decided_seq = %s WHERE table_id = %s AND "
                             "shoe_id IS NOT DISTINCT FROM %s AND game = %s AND decided_seq "
                             "IS NULL", (seq, self.table, data.shoe_id or shoe_id, game))


    def _decision(self, conn: psycopg.Connection, machine: TableMachine, seq: int,
                  event: dict[str, Any]) -> None:
        """A decision: kept for the floor, and the floor's request it answers marked done."""
        game = event.get("game")
        if not isinstance(game, int) or isinstance(game, bool):
            return
        shoe_id = event.get("shoe_id") or (machine.shoe.shoe_id if machine.shoe else None)
        conn.execute(
            "INSERT INTO decisions (table_id, seq, ts, shoe_id, game, action, by, reason) "
            "VALUES (%s, %s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
            (self.table, seq, event["ts"], shoe_id, game, str(event.get("action", "")),
             str(event.get("by", "")), str(event.get("reason", ""))))
        conn.execute("UPDATE decision_requests SET status = 'done', answered_at = now(), "
                     "answer = %s WHERE table_id = %s AND local_seq = %s AND status = "
                     "'recorded'", (f"recorded in the table's log at seq {seq}", self.table, seq))


def _apply_quietly(machine: TableMachine, event: dict[str, Any]) -> list[Any]:
    """What the machine made of `event`; an event the machine does not know changes nothing."""
    try:
        return machine.apply(parse_event(event))
    except TraceError:
        return []
