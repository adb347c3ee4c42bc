"""The table log's formats that outlive its file: chain heads, checkpoints, the bytes a table signs.

A table's log (`store`) writes these; its exports (`export`) carry them and the offline verifier
checks them; the central store (`floor`) ingests and re-checks them. They are pure data and
pure functions (stdlib only) so that every one of those may import them without importing each
other: the export's checks depend on the documented format (docs/export-format.md,
docs/log-integrity.md), not on the code that stores a log.

- `GENESIS`: the `prev_hash` of a log's first event (and the hash "at seq 0"), 64 zeros;
- `ChainHead`, `Checkpoint`: the last event of a log, and a head recorded at a moment;
- `Record`, `Point`: one stored event and one checkpoint as an export reads them by seq;
- `signed_bytes`: the bytes a table's signature of a checkpoint covers;
- `DEFAULT_CHECKPOINT_EVERY`: how many events a table appends at most between two
  checkpoints (so between two signatures: the most an honest log leaves unsigned).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import NamedTuple

GENESIS = "0" * 64

#: A table records (and signs) a checkpoint at least every this many events.
DEFAULT_CHECKPOINT_EVERY = 1000

_SIGNED_TAG = b"dealer-assist signed checkpoint v1\n"


@dataclass(frozen=True)
class ChainHead:
    """The last event of the log: seq 0 and GENESIS while the log is empty."""

    seq: int
    hash: str


@dataclass(frozen=True)
class Checkpoint:
    """The chain head recorded at a moment (`at`, ISO 8601 UTC with milliseconds)."""

    seq: int
    hash: str
    at: str


class Record(NamedTuple):
    """One stored event: its seq, its canonical JSON text (`body`) and its links in the chain."""

    seq: int
    body: str
    prev_hash: str
    hash: str


class Point(NamedTuple):
    """A checkpoint of the log: the chain head (`seq`, `hash`) recorded at `at`."""

    seq: int
    hash: str
    at: str


def signed_bytes(table_id: str, point: Checkpoint, prev: ChainHead) -> bytes:
    """The bytes a checkpoint's signature covers: one field a line, UTF-8, after a fixed tag.

    The fields: the table id, the checkpoint's seq, head hash and time, and the seq and hash of
    the previous signed checkpoint (0 and GENESIS for the first), so the signed checkpoints
    form a chain of their own."""
    fields = (table_id, str(point.seq), point.hash, point.at, str(prev.seq), prev.hash)
    return _SIGNED_TAG + "".join(f"{field}\n" for field in fields).encode("utf-8")
