"""Checkpoints signed with the table's key: the anchor of the log outside its own file.

The hash chain and the checkpoints live in the same file, so whoever can write the file can
cut it back or rewrite it and recompute both. A signed checkpoint cannot be remade without
the table's private key, which never lives in the database: the writer is handed a `Signer`
(the key's `sign`) by the composition root and stores only signatures.

Each signature covers `signed_bytes(...)` (`dealer_assist.logformat`): the table id, the
checkpoint's seq, head hash and time, and the seq and hash of the previous signed checkpoint
(0 and GENESIS for the first).
So the signed checkpoints form a chain of their own, and removing one leaves a break.

`signature_findings` checks the signed checkpoints of a log against the log and names what it
finds: a signature that does not verify (rewritten), a signed seq past the log's end (cut
back), a signed head the event at its seq no longer has (rewritten at N), a broken link
between signed checkpoints (removed between N and M), and a log that ends too far past its
last signed checkpoint (removed after N). See docs/log-integrity.md.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Protocol

from dealer_assist.logformat import GENESIS, ChainHead, Checkpoint, signed_bytes

#: Signs bytes with the table's private key (Ed25519's `sign`), returning the signature.
Signer = Callable[[bytes], bytes]
#: Says whether a signature holds for the bytes: `holds(signature, data)`.
SignatureCheck = Callable[[bytes, bytes], bool]

SIGNATURES_TABLE = (
    'CREATE TABLE "checkpoint_signatures" (\n   "checkpoint_id" INTEGER PRIMARY KEY,\n'
    '   "table_id" TEXT NOT NULL,\n   "prev_seq" INTEGER NOT NULL,\n'
    '   "prev_hash" TEXT NOT NULL,\n   "sig" TEXT NOT NULL\n)'
)

SIGNATURE_TRIGGERS: dict[str, str] = {
    "signatures_no_update": "BEFORE UPDATE ON checkpoint_signatures BEGIN "
    "SELECT RAISE(ABORT, 'checkpoint signatures are append-only: UPDATE refused'); END",
    "signatures_no_delete": "BEFORE DELETE ON checkpoint_signatures BEGIN "
    "SELECT RAISE(ABORT, 'checkpoint signatures are append-only: DELETE refused'); END",
}

@dataclass(frozen=True)
class SignedCheckpoint:
    """A checkpoint with its signature and its link to the previous signed checkpoint;
    `point` is None when the checkpoint row it signed is gone from the log."""

    checkpoint_id: int
    table_id: str
    point: Checkpoint | None
    prev: ChainHead
    sig: bytes


class CheckpointSigning:
    """The writer's side: signs each checkpoint it records, chaining to the last signed one."""

    def __init__(self, table_id: str, signer: Signer, last: ChainHead) -> None:
        self.table_id = table_id
        self._signer = signer
        self._last = last
        self._pending: ChainHead | None = None

    def sign(self, conn: sqlite3.Connection, checkpoint_id: int, point: Checkpoint) -> None:
        """Store the signature of `point` in the writer's open transaction."""
        sig = self._signer(signed_bytes(self.table_id, point, self._last))
        conn.execute(
            "INSERT INTO checkpoint_signatures (checkpoint_id, table_id, prev_seq, prev_hash, sig)"
            " VALUES (?, ?, ?, ?, ?)",
            (checkpoint_id, self.table_id, self._last.seq, self._last.hash, sig.hex()),
        )
        self._pending = ChainHead(point.seq, point.hash)

    def committed(self) -> None:
        """The transaction holding the last signature committed: chain the next one to it."""
        if self._pending is not None:
            self._last, self._pending = self._pending, None

    def rolled_back(self) -> None:
        self._pending = None


def read_signed(conn: sqlite3.Connection) -> list[SignedCheckpoint]:
    """The signed checkpoints of a log, in the order they were recorded."""
    rows = conn.execute(
        "SELECT s.checkpoint_id, s.table_id, c.seq, c.hash, c.at, s.prev_seq, s.prev_hash, s.sig "
        "FROM checkpoint_signatures s LEFT JOIN checkpoints c ON c.id = s.checkpoint_id "
        "ORDER BY s.checkpoint_id"
    ).fetchall()
    signed = []
    for checkpoint_id, table_id, seq, digest, at, prev_seq, prev_hash, sig in rows:
        try:
            raw = bytes.fromhex(sig)
        except (TypeError, ValueError):
            raw = b""
        point = None if seq is None else Checkpoint(seq, digest, at)
        signed.append(SignedCheckpoint(checkpoint_id, table_id, point,
                                       ChainHead(prev_seq, prev_hash), raw))
    return signed


class SignedLog(Protocol):
    """What checking a log against its signed checkpoints reads (the SQLite reader has it)."""

    def signed_checkpoints(self) -> list[SignedCheckpoint]: ...

    def hashes_at(self, seqs: Iterable[int]) -> dict[int, str]: ...

    def head(self) -> ChainHead: ...


def check_signed(log: SignedLog, holds: SignatureCheck, unsigned_tail: int,
                 table: str | None = None) -> str | None:
    """`signature_findings` for a whole log: None when it verifies against its signatures."""
    signed = log.signed_checkpoints()
    seqs = (entry.point.seq for entry in signed if entry.point is not None)
    return signature_findings(signed, log.hashes_at(seqs), log.head(),
                              holds, unsigned_tail, table)


def signature_findings(
    signed: Sequence[SignedCheckpoint],
    hashes: Mapping[int, str],
    end: ChainHead,
    holds: SignatureCheck,
    unsigned_tail: int,
    table: str | None = None,
) -> str | None:
    """What is wrong with the log against its signed checkpoints, or None when nothing is.

    `hashes` maps each signed seq to the hash the log holds there (absent if none); `end` is
    the log's last event; `unsigned_tail` the most events an honest log holds past its last
    signed checkpoint (the checkpoint policy's count); `table`, when given, the table id
    every signature must name.
    """
    prev = ChainHead(0, GENESIS)
    for index, entry in enumerate(signed):
        if entry.point is None:
            return (f"cut back past signed checkpoint {index + 1}: the checkpoint it signed "
                    f"(id {entry.checkpoint_id}, after seq {prev.seq}) was deleted")
        seq = entry.point.seq
        if not holds(entry.sig, signed_bytes(entry.table_id, entry.point, entry.prev)):
            return (f"rewritten: the signature of the checkpoint at seq {seq} "
                    f"({entry.point.at}) does not verify")
        if entry.table_id != (table or signed[0].table_id):
            return (f"the checkpoint at seq {seq} is signed as table {entry.table_id!r}, "
                    f"not {table or signed[0].table_id!r}: another table's log")
        if entry.prev != prev:
            return (f"signed checkpoints removed between seq {prev.seq} and seq {seq}: "
                    f"the one at seq {seq} follows a signed checkpoint at seq {entry.prev.seq} "
                    "that the log no longer holds")
        if seq > end.seq:
            return (f"cut back past signed checkpoint {index + 1}: the log ends at seq "
                    f"{end.seq} but a checkpoint signed at {entry.point.at} holds seq {seq}")
        if hashes.get(seq, GENESIS if seq == 0 else None) != entry.point.hash:
            return (f"rewritten at seq {seq}: the log's hash there is not the one the "
                    f"checkpoint signed at {entry.point.at} holds")
        prev = ChainHead(seq, entry.point.hash)
    if end.seq - prev.seq > unsigned_tail:
        where = f"after seq {prev.seq}" if signed else "all of them"
        return (f"signed checkpoints removed ({where}): the log ends at seq {end.seq}, "
                f"{end.seq - prev.seq} events past its last signed checkpoint, but the table "
                f"signs one at least every {unsigned_tail} events")
    return None
