"""The hash chain, re-checked on a stream of records, and the line format of events.jsonl.

The rules are those of the table's log (`store.chain`, `docs/export-format.md`), written out
again here on purpose: the export's checks depend on the documented format, not on the code
that wrote the log. `hash = SHA-256(prev_hash as 64 hex characters || canonical JSON)`.

A line of events.jsonl is the canonical JSON of `{"event", "hash", "prev_hash", "seq"}`, so it
reads `{"event":<canonical event>,"hash":"…","prev_hash":"…","seq":N}`.

The hot paths (`decode_event`, `read_line_bytes`) read with orjson and keep what it read only
when orjson writes it back, keys sorted, as exactly the text it read; anything else (a text
orjson refuses, spaces, an integer too long for orjson, which reads it as a float) goes the
documented way, through `json`. That round trip is the proof that both read the same value: a
number or string written back as the same text is the same value. A line of events.jsonl must
moreover be canonical as `json` writes it, which is orjson's text character for character
(strings, whole numbers, true/false/null, key order) but for floats (`1e-05` against
`0.00001`): a line holding a float goes the documented way. The result is the same either way,
only faster.
"""

from __future__ import annotations

import hashlib
import json
from typing import Any

import orjson

from dealer_assist.logformat import Record

LINE_KEYS = frozenset({"event", "hash", "prev_hash", "seq"})
_SORTED = orjson.OPT_SORT_KEYS
_sha256 = hashlib.sha256


def canonical_json(value: Any) -> str:
    """Sorted keys, no spaces, UTF-8 text (no \\u escapes), NaN and infinities refused."""
    return json.dumps(
        value, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def link_hash(prev_hash: str, canonical: str) -> str:
    return _sha256((prev_hash + canonical).encode("utf-8")).hexdigest()


def decode_event(body: str) -> Any:
    """`json.loads(body)`, faster; None where the text is not JSON (the re-audit counts it as
    no trace event; the export writes it as stored all the same)."""
    try:
        obj = orjson.loads(body)
        if orjson.dumps(obj, option=_SORTED) == body.encode("utf-8"):
            return obj
    except (orjson.JSONDecodeError, orjson.JSONEncodeError):
        pass
    try:
        return json.loads(body)
    except ValueError:
        return None


def event_line(record: Record) -> str:
    """The line of events.jsonl for a record (no newline); `record.body` is canonical JSON."""
    return (
        f'{{"event":{record.body},"hash":"{record.hash}",'
        f'"prev_hash":"{record.prev_hash}","seq":{record.seq}}}'
    )


class LineError(ValueError):
    """A line of events.jsonl that is not a stored event in the documented form."""


def read_line(line: str) -> tuple[Record, dict[str, Any]]:
    """The record and the decoded event of one line of events.jsonl, or LineError."""
    try:
        obj = json.loads(line)
    except ValueError as exc:
        raise LineError(f"not JSON ({exc})") from None
    if not isinstance(obj, dict) or set(obj) != LINE_KEYS:
        keys = sorted(obj) if isinstance(obj, dict) else type(obj).__name__
        raise LineError(f"a line holds exactly event, hash, prev_hash and seq; found {keys}")
    event, seq = obj["event"], obj["seq"]
    if not isinstance(event, dict):
        raise LineError("event is not a JSON object")
    if type(seq) is not int or not isinstance(obj["hash"], str) \
            or not isinstance(obj["prev_hash"], str):
        raise LineError("seq must be a whole number and the hashes text")
    try:
        body = canonical_json(event)
    except ValueError as exc:
        raise LineError(f"the event cannot be written as canonical JSON ({exc})") from None
    record = Record(seq, body, obj["prev_hash"], obj["hash"])
    if event_line(record) != line.rstrip("\n"):
        raise LineError("the line is not in canonical form (key order, spacing or escapes changed)")
    return record, event


def read_line_bytes(raw: bytes) -> tuple[Record, dict[str, Any]]:
    """`read_line` of a line as read from the file (bytes, no newline): the same record and
    event, or the same LineError, or UnicodeDecodeError where it is not UTF-8."""
    try:
        obj = orjson.loads(raw)
    except orjson.JSONDecodeError:
        obj = None
    if type(obj) is dict and len(obj) == 4:
        event, seq, digest, prev = (obj.get("event"), obj.get("seq"), obj.get("hash"),
                                    obj.get("prev_hash"))
        if type(event) is dict and type(seq) is int and type(digest) is str \
                and type(prev) is str and _floatless(event):
            try:
                body = orjson.dumps(event, option=_SORTED)
            except orjson.JSONEncodeError:
                body = b""
            line = b'{"event":%b,"hash":"%b","prev_hash":"%b","seq":%d}' % (
                body, digest.encode(), prev.encode(), seq)
            if line == raw:
                return Record(seq, body.decode(), prev, digest), event
    return read_line(raw.decode("utf-8"))


def _floatless(value: Any) -> bool:
    """Whether no float lies anywhere in a decoded JSON object or array."""
    for item in value.values() if type(value) is dict else value:
        kind = type(item)
        if kind is float or ((kind is dict or kind is list) and not _floatless(item)):
            return False
    return True


class ChainWalk:
    """Follows a stream of records from a known chain head and says where a link breaks."""

    def __init__(self, seq: int = 0, digest: str = "0" * 64) -> None:
        self.seq = seq
        self.hash: str | None = digest

    def skip(self) -> None:
        """A line that could not be read stands for the next seq; its hash is unknown."""
        self.seq += 1
        self.hash = None

    def step(self, record: Record) -> str | None:
        """Check `record` as the next link; None if it holds, else why not. Moves on either way
        (to the record's own seq and hash), so one break is reported once."""
        # The common case first, in one test: the link holds.
        seq, body, prev, digest = record
        if seq == self.seq + 1 and prev == self.hash \
                and _sha256((prev + body).encode("utf-8")).hexdigest() == digest:
            self.seq, self.hash = seq, digest
            return None
        problem = None
        if record.seq != self.seq + 1:
            problem = f"seq {record.seq} follows seq {self.seq} (expected seq {self.seq + 1})"
        elif self.hash is not None and record.prev_hash != self.hash:
            problem = f"seq {record.seq}: prev_hash is not the hash of seq {self.seq}"
        elif link_hash(record.prev_hash, record.body) != record.hash:
            problem = f"seq {record.seq}: the event does not match its hash (it was changed)"
        self.seq, self.hash = record.seq, record.hash
        return problem
