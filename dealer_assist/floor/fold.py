"""The central fold: the floor's read models made from the stored, chained events only.

A table's role adds its events (the chain trigger lets in only the next links of its chain) and
nothing else the pit reads: it holds no right on `table_status`, `games`, `flags`, `shoes` or
`decisions` (migration 12). The floor service folds them, under its own role (`floor_service`):
each table's events after its read models' last folded seq (`table_status.last_seq`, the fold's
cursor), checked link by link once more (seq, prev_hash, hash), through the same table machine
as at the table (`FloorModels`), in batches of up to `batch` events, one transaction each.

- Several floor services may fold at once: a table's fold holds a transaction-level advisory
  lock on the table (`pg_advisory_xact_lock(FOLD_LOCK, hashtext(table))`) and reads the cursor
  after taking it, so a batch is folded once, by whoever got there first; the other folds what
  is left, if anything. A restart loses nothing: the cursor is in the store.
- `Folder` (a thread of `floor serve`) LISTENs on `floor_ingest` (the events trigger notifies
  it once per stored batch and table) and on `floor_requests` (the channels: floor_wire.py),
  folds what is pending on each wake, and every `sweep` seconds whatever a lost notification
  left. The pit board is told by the `table_status` trigger (`floor_events`), so it hears of a
  batch once it is folded.
- A decision request the table answered `recorded` is marked `done` here, once the decision
  event it names (its `local_seq`, for its game) is folded: a table records its answers, never
  the floor's conclusion.

`fold_pending(conn)` folds everything pending, for tests, benchmarks and scripts.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterable
from time import monotonic
from typing import Any

import psycopg

from dealer_assist.floor.read_models import FloorModels
from dealer_assist.floor_wire import FOLD_CHANNEL, REQUESTS_CHANNEL
from dealer_assist.logformat import GENESIS, ChainHead
from dealer_assist.store.chain import link_hash
from dealer_assist.worker import Worker

#: The advisory lock class of a table's fold (the second key: hashtext(table_id)).
FOLD_LOCK = 67
BATCH = 2000

_log = logging.getLogger(__name__)

#: The read models the pit and the floor's pages show; only the floor service writes them.
READ_MODELS = ("table_status", "games", "flags", "shoes", "decisions")

#: Migration 12 (floor/migrations.py): a table cannot change what the pit sees. Its role loses
#: every write on the read models, which the floor service folds from the stored events, woken
#: by FOLD_CHANNEL. A table answers only its own *waiting* requests, never with `done`: the
#: service marks a recorded one done once its decision event is folded. The open flags count
#: what a person can act on, the informational ones apart (`info_flags`). The read models a
#: table's role could write until now are emptied, to be folded again from the stored events.
CENTRAL_FOLD_SQL = f"""
REVOKE INSERT, UPDATE, DELETE, TRUNCATE ON {", ".join(READ_MODELS)} FROM floor_table;
GRANT INSERT, UPDATE ON {", ".join(READ_MODELS)} TO floor_service;
""" + "".join(f"""CREATE POLICY service_folds ON {name} TO floor_service USING (true)
    WITH CHECK (true);
""" for name in READ_MODELS) + f"""
TRUNCATE {", ".join(READ_MODELS)};
ALTER TABLE table_status ADD COLUMN info_flags integer NOT NULL DEFAULT 0;

CREATE FUNCTION floor_events_stored() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
    PERFORM pg_notify('{FOLD_CHANNEL}', t.table_id)
        FROM (SELECT DISTINCT table_id FROM new_events) t;
    RETURN NULL;
END $$;
CREATE TRIGGER events_stored AFTER INSERT ON events REFERENCING NEW TABLE AS new_events
    FOR EACH STATEMENT EXECUTE FUNCTION floor_events_stored();

DROP POLICY own_table ON decision_requests;
CREATE POLICY own_table ON decision_requests FOR SELECT TO floor_table
    USING (table_id = (SELECT floor_current_table()));
CREATE POLICY table_answers ON decision_requests FOR UPDATE TO floor_table
    USING (table_id = (SELECT floor_current_table()) AND status = 'waiting')
    WITH CHECK (table_id = (SELECT floor_current_table())
                AND status IN ('recorded', 'refused', 'already_decided'));
CREATE POLICY service_settles ON decision_requests FOR UPDATE TO floor_service
    USING (status = 'recorded') WITH CHECK (status = 'done');
GRANT UPDATE (status, answer, answered_at) ON decision_requests TO floor_service;
"""


class FoldRefused(RuntimeError):
    """Stored events that do not chain on from the fold's cursor: nothing of them is folded."""


def pending_tables(conn: psycopg.Connection) -> list[str]:
    """The tables whose stored head is past their read models' last folded seq."""
    rows = conn.execute("SELECT h.table_id FROM table_heads h LEFT JOIN table_status s "
                        "ON s.table_id = h.table_id WHERE h.seq > COALESCE(s.last_seq, 0) "
                        "ORDER BY h.table_id").fetchall()
    return [table for (table,) in rows]


def fold_batch(conn: psycopg.Connection, models: FloorModels, batch: int = BATCH) -> int:
    """Fold up to `batch` of the table's stored events after its cursor, in one transaction
    (`conn` in autocommit mode, or idle); the number folded (0: nothing pending)."""
    table = models.table
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s, hashtext(%s))", (FOLD_LOCK, table))
        after = _cursor(conn, table)
        rows = conn.execute("SELECT seq, ts, body, prev_hash, hash, received_at FROM events "
                            "WHERE table_id = %s AND seq > %s ORDER BY seq LIMIT %s",
                            (table, after.seq, batch)).fetchall()
        if not rows:
            return 0
        events = _checked(table, after, rows)
        models.fold(conn, events, after=after, last_hash=rows[-1][4], received_at=rows[-1][5])
        settle_requests(conn, table)
    return len(events)


def fold_table(conn: psycopg.Connection, models: FloorModels, batch: int = BATCH,
               tally: Callable[[int], object] | None = None) -> int:
    """Fold the table's pending events, a batch per transaction, until none is left; `tally`
    is told the size of each batch committed."""
    total = 0
    while folded := fold_batch(conn, models, batch):
        total += folded
        if tally is not None:
            tally(folded)
    return total


def fold_pending(conn: psycopg.Connection, models: dict[str, FloorModels] | None = None,
                 batch: int = BATCH, tally: Callable[[int], object] | None = None) -> int:
    """Fold every table's pending events and settle the requests whose decision is folded;
    the number of events folded. `models`: each table's folder, kept between calls."""
    models = {} if models is None else models
    total = 0
    for table in _listed(conn):
        folder = models.setdefault(table, FloorModels(table))
        try:
            total += fold_table(conn, folder, batch, tally)
        except (FoldRefused, psycopg.DataError, psycopg.IntegrityError, ValueError) as exc:
            # one table's events that cannot be folded stop that table only, said once
            said = f"table {table}: its events cannot be folded past seq " \
                   f"{_cursor_now(conn, table)} ({exc}); its read models stay as they are"
            if said != folder.stuck:
                _log.error("%s", said)
            folder.stuck = said
        else:
            folder.stuck = None
    with conn.transaction():
        settle_requests(conn)
    return total


def settle_requests(conn: psycopg.Connection, table: str | None = None) -> int:
    """Mark `done` the requests recorded at a table whose decision event (`local_seq`, on the
    request's game) is folded; the number marked."""
    where = "" if table is None else " AND r.table_id = %s"
    cur = conn.execute(
        "UPDATE decision_requests r SET status = 'done', answered_at = now(), "
        "answer = 'recorded in the table''s log at seq ' || r.local_seq FROM decisions d "
        "WHERE r.status = 'recorded' AND d.table_id = r.table_id AND d.seq = r.local_seq "
        "AND d.game = r.game AND d.shoe_id IS NOT DISTINCT FROM r.shoe_id" + where,
        () if table is None else (table,))
    return cur.rowcount


def _cursor_now(conn: psycopg.Connection, table: str) -> int:
    with conn.transaction():
        return _cursor(conn, table).seq


def _listed(conn: psycopg.Connection) -> list[str]:
    with conn.transaction():
        return pending_tables(conn)


def _cursor(conn: psycopg.Connection, table: str) -> ChainHead:
    """The last event the table's read models hold (seq 0 and GENESIS before any)."""
    row = conn.execute("SELECT s.last_seq, e.hash FROM table_status s JOIN events e ON "
                       "e.table_id = s.table_id AND e.seq = s.last_seq WHERE s.table_id = %s",
                       (table,)).fetchone()
    return ChainHead(row[0], row[1]) if row else ChainHead(0, GENESIS)


def _checked(table: str, after: ChainHead, rows: Iterable[tuple[Any, ...]]
             ) -> list[tuple[int, dict[str, Any]]]:
    """The rows as (seq, event), each checked to be the next link after the one before."""
    events, head = [], after
    for seq, ts, body, prev_hash, hash_, _ in rows:
        if seq != head.seq + 1 or prev_hash != head.hash or link_hash(prev_hash, body) != hash_:
            raise FoldRefused(f"table {table}'s stored event {seq} does not chain on from "
                              f"seq {head.seq}")
        events.append((seq, _event_of(body, ts)))
        head = ChainHead(seq, hash_)
    return events


def _event_of(body: str, ts: str) -> dict[str, Any]:
    """The stored event, a NUL in its text read as U+FFFD (PostgreSQL's text holds no NUL).
    One that is not a JSON object with a `ts` (ingest refuses those, a role's own INSERT might
    not), or that holds a lone surrogate (no UTF-8 text), folds as nothing, at its stored time."""
    if "\\u0000" in body:
        body = body.replace("\\u0000", "\\ufffd")
    try:
        event = json.loads(body)
        if "\\ud" in body.lower():
            json.dumps(event, ensure_ascii=False).encode()
    except ValueError:  # UnicodeEncodeError too
        event = None
    if isinstance(event, dict) and isinstance(event.get("ts"), str):
        return event
    return {"type": "unreadable", "ts": ts}


class Folder(Worker):
    """Folds the floor's read models in its own thread, on its own connection to `dsn` (the
    floor service's role): on each notification, and every `sweep` seconds. `ready` is set once
    its first pass is over: the events pending when it connected are folded, or the store did
    not answer (it goes on trying)."""

    def __init__(self, dsn: str, *, sweep: float = 5.0, batch: int = BATCH,
                 backoff: tuple[float, float] = (0.5, 10.0)) -> None:
        super().__init__("floor folder")
        self.dsn, self.sweep, self.batch, self.backoff = dsn, sweep, batch, backoff
        self.ready = threading.Event()
        #: the events this folder has folded (each batch counted once committed)
        self.folded = 0
        self._models: dict[str, FloorModels] = {}

    def _run(self) -> None:
        pause, down = self.backoff[0], False
        while not self._stop.is_set():
            try:
                with psycopg.connect(self.dsn, autocommit=True, connect_timeout=5) as conn:
                    conn.execute(f"LISTEN {FOLD_CHANNEL}")
                    conn.execute(f"LISTEN {REQUESTS_CHANNEL}")
                    if down:
                        _log.info("central store reachable again: folding")
                    down, pause = False, self.backoff[0]
                    self._fold(conn)
                    self.ready.set()
                    due = monotonic() + self.sweep
                    while not self._stop.is_set():
                        woken = list(conn.notifies(timeout=0.5, stop_after=1))
                        if woken or monotonic() >= due:
                            self._fold(conn)
                            due = monotonic() + self.sweep
            except (psycopg.Error, OSError) as exc:
                if not down:
                    _log.warning("the folder lost the central store (%s); retrying", exc)
            except Exception:  # a fault of the fold itself: said, and tried again, later
                _log.exception("the folder failed; retrying")
            down = True
            self.ready.set()
            self._stop.wait(pause)
            pause = min(pause * 2, self.backoff[1])

    def _fold(self, conn: psycopg.Connection) -> None:
        fold_pending(conn, self._models, self.batch, self._tally)

    def _tally(self, folded: int) -> None:
        self.folded += folded
