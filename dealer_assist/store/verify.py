"""Walk a stored chain and say where and how it was tampered with.

The walk reads the records in seq order and stops at the first that does not verify. It
says why in one of four words:

- `edited`: a stored event no longer matches its hash, is not in canonical form, its `ts`
  `src` or `type` columns disagree with it, its seq was renumbered, or its hash differs from
  the one a checkpoint recorded (an event at or before it was changed and the chain rebuilt);
- `deleted`: seqs are missing, an event chains to a hash no stored event has, or the log
  ends before a checkpoint's seq;
- `inserted`: events sit between two events that chain to each other directly;
- `reordered`: an event chains to an event stored after it.

Memory stays flat: one pass, plus a second pass only to classify a broken link.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass

from dealer_assist.logformat import GENESIS, ChainHead, Checkpoint
from dealer_assist.store.chain import RawRecord, canonical_json, link_hash

Records = Callable[[], Iterable[RawRecord]]


@dataclass(frozen=True)
class Problem:
    """The first event that does not verify: its seq, the kind of change, and the detail."""

    seq: int
    kind: str
    detail: str


@dataclass(frozen=True)
class Verdict:
    events: int
    head: ChainHead
    checkpoints: int
    problem: Problem | None

    @property
    def ok(self) -> bool:
        return self.problem is None


def verify_chain(
    records: Records,
    checkpoints: Sequence[Checkpoint] = (),
    on_record: Callable[[int], None] | None = None,
) -> Verdict:
    """Walk the records that `records()` yields (it may be called twice) against the chain.

    `on_record(count)` is called after each record, for a progress display.
    """
    recorded: dict[int, list[Checkpoint]] = {}
    for point in checkpoints:
        recorded.setdefault(point.seq, []).append(point)
    head = ChainHead(0, GENESIS)
    count = 0
    for position, raw in enumerate(records()):
        problem: Problem | None
        if link_hash(raw.prev_hash, raw.body) != raw.hash:
            problem = _inserted_instead(records, position, raw, head) or Problem(
                raw.seq, "edited", "the stored event does not match its hash"
            )
        else:
            problem = _form_problem(raw) or _place_problem(raw, head)
        if problem is None and raw.prev_hash != head.hash:
            problem = _classify_break(records, position, raw, head)
        if problem is None:
            problem = _checkpoint_problem(raw, recorded.get(raw.seq, []))
        if problem is not None:
            return Verdict(count, head, len(checkpoints), problem)
        head = ChainHead(raw.seq, raw.hash)
        count += 1
        if on_record is not None:
            on_record(count)
    beyond = [p for p in checkpoints if p.seq > head.seq]
    if beyond:
        point = max(beyond, key=lambda p: p.seq)
        problem = Problem(
            head.seq + 1,
            "deleted",
            f"the log ends at seq {head.seq} but the checkpoint of {point.at} recorded seq "
            f"{point.seq}: seq {head.seq + 1}..{point.seq} were deleted",
        )
        return Verdict(count, head, len(checkpoints), problem)
    return Verdict(count, head, len(checkpoints), None)


def _form_problem(raw: RawRecord) -> Problem | None:
    """A record that matches its hash against itself: canonical form, query columns."""
    try:
        event = json.loads(raw.body)
        canonical = canonical_json(event)
    except (ValueError, TypeError) as exc:
        return Problem(raw.seq, "edited", f"the stored event is not JSON: {exc}")
    if canonical != raw.body:
        return Problem(raw.seq, "edited", "the stored event is not in canonical JSON form")
    if raw.columns is not None:
        for name, value in zip(("ts", "src", "type"), raw.columns, strict=True):
            if event.get(name) != value:
                return Problem(
                    raw.seq,
                    "edited",
                    f"column {name} says {value!r} but the hashed event says "
                    f"{event.get(name)!r}",
                )
    return None


def _place_problem(raw: RawRecord, head: ChainHead) -> Problem | None:
    """The record's seq against the one expected after `head`."""
    expected = head.seq + 1
    if raw.seq == expected:
        return None
    if raw.seq > expected and raw.prev_hash != head.hash:
        missing = f"seq {expected}" if raw.seq == expected + 1 else f"seq {expected}..{raw.seq - 1}"
        return Problem(expected, "deleted", f"{missing} missing: seq {raw.seq} follows seq "
                       f"{head.seq} and chains to an event that is not in the log")
    return Problem(raw.seq, "edited", f"seq renumbered: the event after seq {head.seq} is "
                   f"stored as seq {raw.seq}")


def _classify_break(records: Records, position: int, raw: RawRecord, head: ChainHead) -> Problem:
    """`raw` does not chain to the event before it: find out why with another pass or two."""
    found = _find_hash(records, raw.prev_hash)
    if found is not None and found[0] > position:
        return Problem(raw.seq, "reordered", f"seq {raw.seq} is out of order: it chains to "
                       f"the event stored after it at seq {found[1]}")
    if found is not None and found[0] < position - 1:
        first = found[2]
        return Problem(first, "inserted", f"{_span(first, head.seq)} inserted: seq {raw.seq} "
                       f"chains directly to {_place(ChainHead(found[1], raw.prev_hash))}")
    before = _place(head)
    return _inserted_instead(records, position, raw, head) or Problem(
        raw.seq, "deleted", f"seq {raw.seq} does not chain to {before}: the event it followed "
        f"is not in the log (deleted, or {before} was edited and its hash recomputed)")


def _find_hash(records: Records, digest: str) -> tuple[int, int, int] | None:
    """(position, seq, seq of the next record) of the record whose hash is `digest`.

    GENESIS is the hash before the first record: position -1, seq 0.
    """
    found: tuple[int, int] | None = (-1, 0) if digest == GENESIS else None
    for index, other in enumerate(records()):
        if found is not None:
            return (*found, other.seq)
        if other.hash == digest:
            found = (index, other.seq)
    return (*found, found[1] + 1) if found is not None else None


def _inserted_instead(
    records: Records, position: int, raw: RawRecord, head: ChainHead
) -> Problem | None:
    """Records from `raw` on were inserted if a later one chains straight to `head`."""
    for index, other in enumerate(records()):
        if index > position and other.prev_hash == head.hash:
            return Problem(raw.seq, "inserted", f"{_span(raw.seq, other.seq - 1)} inserted: "
                           f"seq {other.seq} chains directly to {_place(head)}")
    return None


def _span(first: int, last: int) -> str:
    return f"seq {first} was" if first == last else f"seq {first}..{last} were"


def _place(head: ChainHead) -> str:
    return f"seq {head.seq}" if head.seq else "the start of the log"


def _checkpoint_problem(raw: RawRecord, points: list[Checkpoint]) -> Problem | None:
    for point in points:
        if point.hash != raw.hash:
            return Problem(raw.seq, "edited", f"seq {raw.seq}'s hash is not the one the "
                           f"checkpoint of {point.at} recorded: an event at or before seq "
                           f"{raw.seq} was changed and the chain recomputed after it")
    return None
