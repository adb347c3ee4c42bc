"""Tampering with a table log's SQLite file the way someone with the sqlite3 tool would: the
append-only triggers dropped first, then rows edited, and the hash chain rebuilt if wanted."""

from __future__ import annotations

import hashlib
import sqlite3
from collections.abc import Callable
from pathlib import Path

from dealer_assist.store.sqlite_log import TRIGGERS


def outside(db: Path, *statements: str, params: tuple = ()) -> None:
    """Run SQL on the file, triggers dropped first (`params` go to statements with a `?`)."""
    conn = sqlite3.connect(db, isolation_level=None)
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    for sql in statements:
        conn.execute(sql, params if "?" in sql else ())
    conn.close()


def row(db: Path, seq: int) -> tuple[str, str, str]:
    """The body, prev_hash and hash stored at `seq`."""
    conn = sqlite3.connect(db)
    found = conn.execute("SELECT body, prev_hash, hash FROM events WHERE seq = ?",
                         (seq,)).fetchone()
    conn.close()
    return found


def rehash(prev: str, body: str) -> str:
    """The chain's hash of an event body after `prev`."""
    return hashlib.sha256((prev + body).encode("utf-8")).hexdigest()


def rechain_from(db: Path, seq: int, change: Callable[[str], str]) -> None:
    """Change the body at `seq` and recompute every hash from there on, so that the chain
    alone no longer tells."""
    conn = sqlite3.connect(db, isolation_level=None)
    for name in TRIGGERS:
        conn.execute(f"DROP TRIGGER IF EXISTS {name}")
    rows = conn.execute("SELECT seq, body, prev_hash FROM events WHERE seq >= ? ORDER BY seq",
                        (seq,)).fetchall()
    prev = rows[0][2]
    conn.execute("BEGIN")
    for number, body, _ in rows:
        body = change(body) if number == seq else body
        digest = rehash(prev, body)
        conn.execute("UPDATE events SET body = ?, prev_hash = ?, hash = ? WHERE seq = ?",
                     (body, prev, digest, number))
        prev = digest
    conn.execute("COMMIT")
    conn.close()
