"""Ingest: a batch of a table's events joins the central store only if it continues the chain.

The table's half of ingest, run by the shipper on the table PC under the table's own role (the
central half is the store's own trigger, floor/migrations.py, migration 10, which refuses any
statement whose events are not the next links). A batch is checked against the table's head in
the central store (its anchor): seqs follow on with no gap, each event's `prev_hash` is the hash
before it (the stored head for the first), and each `hash` is recomputed with the log's own
`link_hash`. An event already stored is harmless when its hash is the stored one and an alarm
when it is not. A batch that does not chain is refused whole, and an integrity alarm is recorded
(`integrity_alarms`, which notifies floor_wire.ALARM_CHANNEL): it is never stored silently.

Ingest stores events and nothing else: the read models the pit sees are folded from the stored
events by the floor service (floor/fold.py), which a table's role cannot write.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import psycopg

from dealer_assist.floor_wire import columns, insert
from dealer_assist.logformat import GENESIS, ChainHead
from dealer_assist.store.chain import RawRecord, link_hash


class IntegrityAlarm(RuntimeError):
    """A batch that does not continue the table's chain; recorded in `integrity_alarms`."""

    def __init__(self, table: str, seq: int, found: str) -> None:
        super().__init__(f"integrity alarm for table {table} at seq {seq}: {found}")
        self.table = table
        self.seq = seq
        self.found = found


@dataclass(frozen=True)
class Shipped:
    """What a batch did: events newly stored, events already there, the head after it."""

    stored: int
    already: int
    head: ChainHead


def central_head(conn: psycopg.Connection, table: str) -> ChainHead:
    """The table's head as the central store keeps it (seq 0 and GENESIS before any event)."""
    row = conn.execute("SELECT seq, hash FROM table_heads WHERE table_id = %s",
                       (table,)).fetchone()
    conn.commit()
    return ChainHead(row[0], row[1]) if row else ChainHead(0, GENESIS)


def raise_alarm(conn: psycopg.Connection, table: str, seq: int, found: str) -> IntegrityAlarm:
    """Record an alarm in its own transaction and return it for the caller to raise."""
    conn.rollback()
    conn.execute(insert("integrity_alarms"), (table, seq, found))
    conn.commit()
    return IntegrityAlarm(table, seq, found)


class Ingest:
    """Stores one table's batches on a connection of that table's role."""

    def __init__(self, conn: psycopg.Connection, table: str) -> None:
        self.conn = conn
        self.table = table

    def ship(self, records: Sequence[RawRecord], head: ChainHead | None = None) -> Shipped:
        """Store `records` (in seq order) in one transaction, or raise IntegrityAlarm.
        `head`: the central head as the caller last stored it (it saves a round trip; a stale
        one cannot store a broken chain: the events trigger refuses a statement whose events
        are not the next links, a psycopg error, after which the caller reads the head again)."""
        try:
            return self._ship(records, head)
        except BaseException:
            if not self.conn.closed:
                self.conn.rollback()
            raise

    def _ship(self, records: Sequence[RawRecord], head: ChainHead | None) -> Shipped:
        conn, table = self.conn, self.table
        head = head or central_head(conn, table)
        old = [r for r in records if r.seq <= head.seq]
        stored: dict[int, str] = dict(conn.execute(
            "SELECT seq, hash FROM events WHERE table_id = %s AND seq = ANY(%s)",
            (table, [r.seq for r in old])).fetchall()) if old else {}
        for r in old:
            if stored.get(r.seq) != r.hash:
                raise raise_alarm(conn, table, r.seq, "an event differs from the one stored "
                                  "at this seq (the log was edited, or cut back and re-grown)")
        new = []
        for r in records[len(old):]:
            found = _not_next(head, r)
            event = None if found else _event_of(r.body)
            if event is None:
                raise raise_alarm(conn, table, r.seq, found or "the event is not a JSON object "
                                  "with a ts")
            new.append((r, event))
            head = ChainHead(r.seq, r.hash)
        if new:
            # the events in one statement: the store checks the chain once for it
            conn.execute(
                f"INSERT INTO events ({columns('events')}) "
                "SELECT %s, * FROM unnest(%b::bigint[], %b::text[], %b::text[], "
                "%b::text[], %b::text[], %b::text[])",
                (table, [r.seq for r, _ in new], [e["ts"] for _, e in new],
                 [str(e.get("type", "")) for _, e in new], [r.body for r, _ in new],
                 [r.prev_hash for r, _ in new], [r.hash for r, _ in new]))
        conn.commit()
        return Shipped(len(new), len(old), head)


def _not_next(head: ChainHead, r: RawRecord) -> str | None:
    """Why `r` is not the next link after `head`, or None when it is."""
    if r.seq != head.seq + 1:
        return f"seq {r.seq} where {head.seq + 1} was due (events missing or out of order)"
    if r.prev_hash != head.hash:
        return "the event does not chain to the stored head (the log was cut back and re-grown)"
    if link_hash(r.prev_hash, r.body) != r.hash:
        return "the event does not match its hash (it was edited)"
    return None


def _event_of(body: str) -> dict[str, Any] | None:
    """The event in a stored body, or None when it is not a JSON object with a `ts`."""
    try:
        event = json.loads(body)
    except ValueError:
        return None
    return event if isinstance(event, dict) and isinstance(event.get("ts"), str) else None
