"""A table log whose checkpoints are signed, and the attacks on it of someone who can write
the file and has the source, but not the table's private key."""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path

from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from dealer_assist.store.chain import link_hash
from dealer_assist.store.sqlite_log import SqliteEventLog
from tests.logtamper import outside
from tests.store.conftest import trace_event

EVERY = 10  # a signed checkpoint every ten events


@dataclass(frozen=True)
class SignedLog:
    path: Path
    pubkey: Path
    key: Ed25519PrivateKey


def write_public(key: Ed25519PrivateKey, path: Path) -> Path:
    path.write_bytes(key.public_key().public_bytes(
        serialization.Encoding.PEM, serialization.PublicFormat.SubjectPublicKeyInfo))
    return path


def signed_log(folder: Path, events: int = 45, name: str = "T1.events.db") -> SignedLog:
    """A closed log of `events` events, a signed checkpoint every ten, as table T1."""
    key = Ed25519PrivateKey.generate()
    path = folder / name
    log = SqliteEventLog(path, checkpoint_every=EVERY, checkpoint_interval=None,
                         signer=key.sign, table_id="T1")
    for n in range(events):
        log.append(trace_event(n))
    log.close()
    return SignedLog(path, write_public(key, folder / "table.pub.pem"), key)


def cut_back(db: Path, seq: int) -> None:
    """Delete the events after `seq` and the checkpoints that recorded them."""
    outside(db, f"DELETE FROM events WHERE seq > {seq}",
            f"DELETE FROM checkpoints WHERE seq > {seq}")


def remove_signed(db: Path, *seqs: int) -> None:
    """Delete the signed checkpoints of `seqs`, signature and checkpoint both."""
    where = f"seq IN ({', '.join(map(str, seqs))})"
    outside(db, "DROP TRIGGER IF EXISTS signatures_no_delete",
            f"DELETE FROM checkpoint_signatures WHERE checkpoint_id IN "
            f"(SELECT id FROM checkpoints WHERE {where})",
            f"DELETE FROM checkpoints WHERE {where}")


def rewrite(db: Path, seq: int, remake_checkpoints: bool = True) -> None:
    """Change the card at `seq`, recompute every hash after it with the project's own chain
    function and, if asked, make every checkpoint record the new hashes (the signatures
    cannot be remade, so they are left as they were)."""
    conn = sqlite3.connect(db, isolation_level=None)
    conn.execute("BEGIN")
    for (name,) in conn.execute("SELECT name FROM sqlite_master WHERE type = 'trigger'"):
        conn.execute(f"DROP TRIGGER {name}")
    rows = conn.execute("SELECT seq, body, prev_hash FROM events WHERE seq >= ? ORDER BY seq",
                        (seq,)).fetchall()
    prev = rows[0][2]
    for number, body, _ in rows:
        if number == seq:
            event = json.loads(body)
            event["card"] = "QS" if event["card"] != "QS" else "JS"
            body = json.dumps(event, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
        digest = link_hash(prev, body)
        conn.execute("UPDATE events SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                     (body, prev, digest, number))
        prev = digest
    if remake_checkpoints:
        conn.execute("UPDATE checkpoints SET hash = (SELECT hash FROM events "
                     "WHERE events.seq = checkpoints.seq)")
    conn.execute("COMMIT")
    conn.close()
