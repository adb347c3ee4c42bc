"""The table's side of its signed checkpoints: shipped to the central store with its public key.

A table signs its checkpoints with its Ed25519 key (store/signed_checkpoints.py); the central
store keeps a copy of those signatures so that a floor export can carry them and each table's
chain can be checked against its own key, without trusting the floor's (floor/checkpoints.py).

The shipper (`CheckpointShipper.ship`, after each round of events) sends the signed
checkpoints the central store lacks, in the order the table signed them, and only those whose
seq the central store already holds. Each is verified at ingest (`store_signed`):
  - it names this table, and its signature holds with the table's **registered** public key;
  - its (seq, hash) is the hash of the event stored centrally at that seq;
  - it links to the table's last stored signed checkpoint (its `prev`), so none is missing.
Anything else is refused whole and raises an integrity alarm, like a broken chain: it is never
stored. A trigger checks the last two again in the database, under anything a table's role
might send by hand (PostgreSQL cannot check an Ed25519 signature; every verifier does).

The table's key (`table_keys`, floor_wire.register_key): registered once, by the floor's owner
ahead of time (the careful way: the key is pinned before the table ever connects) or else on
first use by the table's own shipper. A table's role may add its key but never change or remove
it; a shipper offering another key than the registered one raises an alarm and ships nothing
more. See docs/floor.md, "Floor exports".
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Mapping, Sequence
from pathlib import Path

import psycopg
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_assist.floor_wire import (
    KeyAlreadyRegistered,
    insert,
    key_from_pem,
    register_key,
    registered_key,
)
from dealer_assist.logformat import GENESIS, ChainHead, Checkpoint, signed_bytes
from dealer_assist.shipping.ingest import central_head, raise_alarm
from dealer_assist.signing_keys import (
    ENV_SIGNING_KEY,
    fingerprint,
    load_private_key,
    signature_holds,
)
from dealer_assist.store.signed_checkpoints import SignedCheckpoint
from dealer_assist.store.sqlite_log import read_only_uri

_BATCH = 500


def table_public_key_from_environment(
        environ: Mapping[str, str] | None = None) -> Ed25519PublicKey | None:
    """The public half of the key DEALER_ASSIST_SIGNING_KEY names (the key the table's log
    signs its checkpoints with), for the shipper; None when the variable is not set."""
    value = (os.environ if environ is None else environ).get(ENV_SIGNING_KEY, "").strip()
    if not value:
        return None
    return load_private_key(Path(value).expanduser()).public_key()


class CheckpointShipper:
    """Ships one table's signed checkpoints, read from its log at `log_path`, to the central
    store; `public_key` is the table's own (the public half of the key that signs them)."""

    def __init__(self, log_path: str | Path, table: str, public_key: Ed25519PublicKey) -> None:
        self.path, self.table, self.key = Path(log_path), table, public_key
        self.fingerprint = fingerprint(public_key)
        self._conn: psycopg.Connection | None = None
        self._registered: Ed25519PublicKey = public_key
        self._last = ChainHead(0, GENESIS)
        self._n = 0
        self._after_id = 0

    def ship(self, conn: psycopg.Connection, head: ChainHead | None = None) -> int:
        """Store the signed checkpoints the central store lacks whose seq it holds (`head`:
        the central head, read when not given); return how many were stored. Raises
        IntegrityAlarm (recorded) for a checkpoint that does not verify. Idempotent: the
        state is read from the central store on each new connection."""
        if conn is not self._conn:
            self._conn = None
            self._connect(conn)
            self._conn = conn
        head = head if head is not None and head.hash else central_head(conn, self.table)
        stored = 0
        while True:
            ready = [entry for entry in self._local(self._after_id, _BATCH)]
            due = []
            for checkpoint_id, entry in ready:
                if entry.point is None:
                    raise raise_alarm(conn, self.table, self._last.seq, "the table's log holds "
                                      f"the signature of checkpoint {checkpoint_id} but not the "
                                      "checkpoint (it was removed)")
                if entry.point.seq > head.seq:
                    break  # its event is not stored centrally yet: next round
                due.append((checkpoint_id, entry))
            if not due:
                return stored
            self._store([entry for _, entry in due])
            self._after_id = due[-1][0]
            stored += len(due)
            if len(due) < len(ready) or len(ready) < _BATCH:
                return stored

    def _connect(self, conn: psycopg.Connection) -> None:
        """Register or check the table's key, read the last signed checkpoint stored."""
        try:
            register_key(conn, self.table, self.key)
        except KeyAlreadyRegistered as exc:
            raise raise_alarm(conn, self.table, central_head(conn, self.table).seq,
                              f"the table offers another public key: {exc}; a table's key is "
                              "never replaced silently") from None
        known = registered_key(conn, self.table)
        assert known is not None
        self._registered = key_from_pem(known["pem"])
        row = conn.execute("SELECT n, seq, hash FROM signed_checkpoints WHERE table_id = %s "
                           "ORDER BY n DESC LIMIT 1", (self.table,)).fetchone()
        conn.commit()
        self._n, self._last = (row[0], ChainHead(row[1], row[2])) if row \
            else (0, ChainHead(0, GENESIS))
        self._after_id = 0
        if self._n == 0:
            return
        local = self._local(0, 1, offset=self._n - 1)
        if not local:
            raise raise_alarm(conn, self.table, self._last.seq, "the table's log holds fewer "
                              f"signed checkpoints than the {self._n} stored centrally (it was "
                              "cut back or replaced)")
        checkpoint_id, entry = local[0]
        if entry.point is None or ChainHead(entry.point.seq, entry.point.hash) != self._last:
            raise raise_alarm(conn, self.table, self._last.seq, f"the table's signed checkpoint "
                              f"number {self._n} is not the one stored centrally at seq "
                              f"{self._last.seq} (the log was replaced)")
        self._after_id = checkpoint_id

    def _local(self, after_id: int, limit: int,
               offset: int = 0) -> list[tuple[int, SignedCheckpoint]]:
        """The log's signed checkpoints after checkpoint id `after_id`, in signing order."""
        conn = sqlite3.connect(read_only_uri(self.path), uri=True)
        try:
            if conn.execute("PRAGMA user_version").fetchone()[0] < 2:
                return []  # a log from before checkpoints were signed
            rows = conn.execute(
                "SELECT s.checkpoint_id, s.table_id, c.seq, c.hash, c.at, s.prev_seq, "
                "s.prev_hash, s.sig FROM checkpoint_signatures s "
                "LEFT JOIN checkpoints c ON c.id = s.checkpoint_id "
                "WHERE s.checkpoint_id > ? ORDER BY s.checkpoint_id LIMIT ? OFFSET ?",
                (after_id, limit, offset)).fetchall()
        finally:
            conn.close()
        found = []
        for checkpoint_id, table_id, seq, digest, at, prev_seq, prev_hash, sig in rows:
            point = None if seq is None else Checkpoint(seq, digest, at)
            found.append((checkpoint_id, SignedCheckpoint(
                checkpoint_id, table_id, point, ChainHead(prev_seq, prev_hash),
                _unhex(sig))))
        return found

    def _store(self, entries: Sequence[SignedCheckpoint]) -> None:
        assert self._conn is not None
        self._n, self._last = store_signed(self._conn, self.table, self._registered, entries,
                                           self._n, self._last)


def store_signed(conn: psycopg.Connection, table: str, key: Ed25519PublicKey,
                 entries: Sequence[SignedCheckpoint], n: int,
                 last: ChainHead) -> tuple[int, ChainHead]:
    """Verify `entries` (the table's signed checkpoints after its `n`-th, `last`) and store them
    in one transaction; return the new (n, last). Raises IntegrityAlarm, recorded, for the
    first one that does not verify: none of them is stored then."""
    seqs = [e.point.seq for e in entries if e.point is not None]
    stored: dict[int, str] = dict(conn.execute(
        "SELECT seq, hash FROM events WHERE table_id = %s AND seq = ANY(%s)",
        (table, seqs)).fetchall())
    stored[0] = GENESIS
    rows = []
    for entry in entries:
        found = _refused(table, key, entry, last, stored)
        if found is not None:
            at = entry.point.seq if entry.point is not None else last.seq
            raise raise_alarm(conn, table, at, found)
        assert entry.point is not None
        n += 1
        rows.append((table, n, entry.point.seq, entry.point.hash, entry.point.at,
                     entry.prev.seq, entry.prev.hash, entry.sig.hex()))
        last = ChainHead(entry.point.seq, entry.point.hash)
    with conn.cursor() as cur:
        cur.executemany(insert("signed_checkpoints"), rows)
    conn.commit()
    return n, last


def _refused(table: str, key: Ed25519PublicKey, entry: SignedCheckpoint, last: ChainHead,
             stored: Mapping[int, str]) -> str | None:
    """Why the central store refuses `entry`, or None when it verifies."""
    point = entry.point
    if point is None:
        return "a signature whose checkpoint is gone from the table's log"
    where = f"the signed checkpoint at seq {point.seq} ({point.at})"
    if entry.table_id != table:
        return f"{where} is signed as table {entry.table_id!r}: another table's log"
    if not signature_holds(key, entry.sig, signed_bytes(entry.table_id, point, entry.prev)):
        return (f"{where} does not verify with the table's registered key {fingerprint(key)} "
                "(forged, edited, or signed with another key)")
    if entry.prev != last:
        return (f"{where} follows a signed checkpoint at seq {entry.prev.seq}, but the last "
                f"one stored is at seq {last.seq} (signed checkpoints removed)")
    if stored.get(point.seq) != point.hash:
        return (f"{where} signs hash {point.hash[:16]}..., but the event stored at seq "
                f"{point.seq} has {str(stored.get(point.seq))[:16]}... (the log was rewritten)")
    return None


def _unhex(text: object) -> bytes:
    try:
        return bytes.fromhex(str(text))
    except ValueError:
        return b""
