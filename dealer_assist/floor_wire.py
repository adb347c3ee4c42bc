"""The contract between a table PC and the floor's central store: what both sides agree on.

A table ships its log (dealer_assist/shipping/) into the central PostgreSQL store, under its own
role; the floor (dealer_assist/floor/) made that store (its migrations) and reads it (the fold,
the pit, the regulator pages, exports). Neither side imports the other: both import this module,
which names, once:

- the tables a table's role writes, and the columns it gives (`TABLE_WRITES`): its events (the
  wire form of a shipped event: a log record's seq, body, prev_hash and hash, with the ts and
  type read from its body), its integrity alarms, its public key, its signed checkpoints, and
  its answers to the floor's decision requests;
- a decision request as both sides read it (`DecisionRequest`, `REQUEST_COLUMNS`), its
  statuses, and what settles a game (`decided`): the pit checks it before it asks, the table
  before it records;
- the table's registered public key (`register_key`, `registered_key`): registered by the
  floor's owner ahead of time or by the table's shipper on first use, carried by the exports;
- the NOTIFY channels the store's triggers send on.

The schema itself is the floor's migrations (floor/migrations.py); tests/shipping/test_wire.py
checks that a migrated store has every table and column named here. See docs/floor.md.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import psycopg
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PublicKey

from dealer_assist.signing_keys import fingerprint

# ---- the NOTIFY channels ---------------------------------------------------------------------

#: Once per stored batch and table (payload: the table id): the floor service folds it.
FOLD_CHANNEL = "floor_ingest"
#: Once per integrity alarm (JSON: id, table, seq, found).
ALARM_CHANNEL = "floor_integrity"
#: Once per table and transaction that changes its `table_status` (payload: the table id).
EVENTS_CHANNEL = "floor_events"
#: Once per decision request stored or answered (JSON: id, table, status).
REQUESTS_CHANNEL = "floor_requests"

# ---- what a table's role writes --------------------------------------------------------------

#: Each table a table's role writes, with the columns it gives (the store fills in the rest).
#: `decision_requests` is only ever updated: a table answers its own waiting requests.
TABLE_WRITES: dict[str, tuple[str, ...]] = {
    "events": ("table_id", "seq", "ts", "type", "body", "prev_hash", "hash"),
    "integrity_alarms": ("table_id", "seq", "found"),
    "table_keys": ("table_id", "public_key", "fingerprint"),
    "signed_checkpoints": ("table_id", "n", "seq", "hash", "at", "prev_seq", "prev_hash", "sig"),
    "decision_requests": ("status", "answer", "local_seq", "answered_at"),
}


def columns(table: str) -> str:
    """The columns a table's role gives in `table`, as a statement lists them."""
    return ", ".join(TABLE_WRITES[table])


def insert(table: str) -> str:
    """The INSERT of one row of `table` as a table's role sends it (`%s` placeholders)."""
    return (f"INSERT INTO {table} ({columns(table)}) "
            f"VALUES ({', '.join(['%s'] * len(TABLE_WRITES[table]))})")


# ---- decision requests -----------------------------------------------------------------------

#: A request's status, and what the pit shows for it:
#:   waiting          the table has not picked it up yet (it may be unreachable)
#:   recorded         in the table's log; shipping back to the central store
#:   done             the decision event is in the central copy of the table's log
#:   refused          the table refused it (the answer says why: a correction the rules refuse...)
#:   already_decided  the game was decided at the table first: not recorded twice
STATUS_TEXT = {
    "waiting": "waiting for the table",
    "recorded": "recorded at the table, shipping back",
    "done": "recorded in the table's log",
    "refused": "refused by the table",
    "already_decided": "already decided at the table",
}
OPEN = ("waiting", "recorded")
#: A request as both sides read it from `decision_requests`.
REQUEST_COLUMNS = ("id, table_id, shoe_id, game, action, player, banker, reason, by, at, "
                   "status, answer, local_seq")


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


def request_of(row: Sequence[Any]) -> DecisionRequest:
    """A request from a row of REQUEST_COLUMNS."""
    (id_, table, shoe_id, game, action, player, banker, reason, by, at, status, answer,
     local_seq) = row
    return DecisionRequest(id_, table, shoe_id, game, action, tuple(player or ()),
                           tuple(banker or ()), reason, by, at, status, answer, local_seq)


def decided(conn: psycopg.Connection, table: str, shoe_id: str, game: int,
            action: str = "accept") -> tuple[int, str, str] | None:
    """The first decision (seq, by, reason) the central copy holds that settles `action` on
    the game, or None. A decision on the game, or a `void_shoe` from it or an earlier game of
    its shoe, settles it; a `void_shoe` is settled only by another `void_shoe` from that game
    or an earlier one (docs/floor.md, "Decisions taken on the floor")."""
    row = conn.execute("SELECT seq, by, reason FROM decisions WHERE table_id = %s AND "
                       "shoe_id = %s AND ((action = 'void_shoe' AND game <= %s) OR "
                       "(game = %s AND %s <> 'void_shoe')) ORDER BY seq LIMIT 1",
                       (table, shoe_id, game, game, action)).fetchone()
    return (int(row[0]), str(row[1]), str(row[2])) if row else None


# ---- the table's public key ------------------------------------------------------------------

class KeyAlreadyRegistered(ValueError):
    """`register_key` for a table that has another key already."""


def public_pem(key: Ed25519PublicKey) -> str:
    return key.public_bytes(serialization.Encoding.PEM,
                            serialization.PublicFormat.SubjectPublicKeyInfo).decode("ascii")


def key_from_pem(pem: str) -> Ed25519PublicKey:
    """The Ed25519 public key in `pem`; ValueError when it is not one."""
    key = serialization.load_pem_public_key(pem.encode("ascii"))
    if not isinstance(key, Ed25519PublicKey):
        raise ValueError(f"not an Ed25519 public key but a {type(key).__name__}")
    return key


def registered_key(conn: psycopg.Connection, table: str) -> dict[str, Any] | None:
    """The table's registered key: {"pem", "fingerprint", "by", "at"}, or None."""
    row = conn.execute("SELECT public_key, fingerprint, registered_by, registered_at "
                       "FROM table_keys WHERE table_id = %s", (table,)).fetchone()
    if row is None:
        return None
    return {"pem": row[0], "fingerprint": row[1], "by": row[2], "at": row[3]}


def register_key(conn: psycopg.Connection, table: str, key: Ed25519PublicKey) -> str:
    """Register `key` as the table's public key (the floor's owner, ahead of the table's first
    shipping; or the table's own role on first use); return its fingerprint. The same key
    again is harmless; another one raises KeyAlreadyRegistered (nothing is replaced)."""
    wanted = fingerprint(key)
    with conn.transaction():
        known = registered_key(conn, table)
        if known is None:
            conn.execute(insert("table_keys"), (table, public_pem(key), wanted))
        elif known["fingerprint"] != wanted:
            raise KeyAlreadyRegistered(
                f"table {table} has the key {known['fingerprint']} registered (by "
                f"{known['by']}); {wanted} is not registered in its place")
    conn.commit()
    return wanted
