"""The hash chain that makes the event log tamper-evident.

Every stored event carries the hash of the event before it (`prev_hash`) and its own
`hash = SHA-256(prev_hash || canonical JSON of the event)`, where `prev_hash` takes part as
its 64 lowercase hexadecimal ASCII characters and the canonical JSON as UTF-8 bytes. The first
event's `prev_hash` is GENESIS, 64 zeros. `docs/export-format.md` states the same for
regulators, who recompute it with their own tools.

Canonical JSON: keys sorted (by code point), no spaces (`,` and `:` separators), non-ASCII
characters written as themselves in UTF-8 (no `\\u` escapes), NaN and infinities refused.

GENESIS, the chain heads and checkpoints are in `dealer_assist.logformat`, which the export and
the floor read too.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from typing import Any

from dealer_assist.domain.events import trace_time

REQUIRED_FIELDS = ("ts", "src", "type")


class InvalidEvent(ValueError):
    """An event the log refuses to store; the message says which field and why."""


class ChainBroken(RuntimeError):
    """The stored chain does not verify; `dealer-assist verify-log` says where and why."""

    def __init__(self, seq: int, why: str) -> None:
        super().__init__(f"event log chain broken at seq {seq}: {why}")
        self.seq = seq
        self.why = why


@dataclass(frozen=True)
class RawRecord:
    """A stored row as it lies in the log: `body` is the canonical JSON text that was hashed.

    `columns` holds the copies of `ts`, `src` and `type` that the SQLite log keeps for
    queries (None where a log keeps no copies); they must agree with the body.
    """

    seq: int
    body: str
    prev_hash: str
    hash: str
    columns: tuple[str, str, str] | None = None


@dataclass(frozen=True)
class StoredEvent:
    """One event as the log keeps it: its place, the event, and its links in the chain."""

    seq: int
    event: dict[str, Any]
    prev_hash: str
    hash: str


def canonical_json(event: Mapping[str, Any]) -> str:
    """The canonical JSON text of `event` (see the module docstring)."""
    return json.dumps(
        event, sort_keys=True, separators=(",", ":"), ensure_ascii=False, allow_nan=False
    )


def link_hash(prev_hash: str, canonical: str) -> str:
    """SHA-256 of `prev_hash` (hex text) followed by the canonical JSON, as lowercase hex."""
    return hashlib.sha256((prev_hash + canonical).encode("utf-8")).hexdigest()


def event_hash(prev_hash: str, event: Mapping[str, Any]) -> str:
    return link_hash(prev_hash, canonical_json(event))


def check_event(event: object) -> str:
    """Check that `event` can be stored exactly as given and return its canonical JSON.

    An event is a JSON object with non-empty string fields `ts`, `src` and `type`; `ts` is
    ISO 8601 in UTC. It must survive JSON unchanged: plain dicts with string keys, lists,
    strings, integers, finite floats, booleans and null only.
    """
    if not isinstance(event, Mapping):
        raise InvalidEvent(f"an event is a JSON object, not {type(event).__name__}")
    for name in REQUIRED_FIELDS:
        value = event.get(name)
        if not isinstance(value, str) or not value:
            raise InvalidEvent(f"field {name!r} must be a non-empty string, got {value!r}")
    _check_ts(event["ts"])
    try:
        text = canonical_json(event)
        text.encode("utf-8")
    except (TypeError, ValueError) as exc:
        raise InvalidEvent(f"event of type {event['type']!r} is not plain JSON: {exc}") from exc
    if json.loads(text) != event:
        raise InvalidEvent(
            f"event of type {event['type']!r} does not survive JSON unchanged "
            "(tuples, non-string keys or other non-JSON values)"
        )
    return text


def _check_ts(ts: str) -> None:
    try:
        moment = datetime.fromisoformat(ts)
    except ValueError as exc:
        raise InvalidEvent(f"field 'ts' is not ISO 8601: {ts!r}") from exc
    if moment.utcoffset() != timedelta(0):
        raise InvalidEvent(f"field 'ts' must be UTC (end in Z): {ts!r}")


#: `moment` as the trace writes times (ISO 8601 UTC, milliseconds, Z).
utc_stamp = trace_time


def utc_now() -> datetime:
    return datetime.now(UTC)
