"""A live table's state as bytes, so a restart loads it instead of replaying the whole log.

What is kept: the table machine (its phase, every shoe with its games, flags and rulings,
the problems it noted), the live table's side-bet alerts and decision history, the dealer
of every game and the dealer at the table, the log seq the state stands at, and the seq of
the current shoe's `new_shoe` (the watchers, which keep state only within a shoe, see that
shoe's events again after a restart). Link status is not kept: after a restart every link
is unknown until it reports.

The format is a pickle. It is unpickled only once the file's seal (an HMAC under a key
derived from the table's signing key, store/snapshot_seal.py) and the log vouch for it
(store/snapshot.py), and then by an unpickler that refuses every global but the four domain
classes a table's state is made of (the Python docs' "Restricting Globals"), a second wall
should the first ever fall: a file written by someone else is refused unread. Each shoe is
pickled on its own and kept (`ShoeBlobs`) until it changes again, so taking a snapshot under
the table's lock costs the shoes that changed since the last one, not the whole history.
"""

from __future__ import annotations

import gc
import hashlib
import io
import json
import pickle
from collections.abc import Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any

from dealer_assist.domain.game import Game
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.paytable import PayTable
from dealer_assist.domain.phases import BETWEEN, BURN, DEALING, NO_SHOE
from dealer_assist.domain.shoe import Shoe
from dealer_assist.domain.table import TableMachine

#: Bumped whenever what is pickled changes shape (a new slot in Game or Shoe...).
FORMAT = 3  # 3: Shoe.interrupted (the system's interruption of the game being dealt)
_PROTOCOL = 5
#: The only globals a snapshot may name: the classes a table's state is made of.
_ALLOWED = {
    ("dealer_assist.domain.shoe", "Shoe"),
    ("dealer_assist.domain.game", "Game"),
    ("dealer_assist.domain.flags", "Flag"),
    ("dealer_assist.domain.house", "HouseRules"),
}


class StateError(ValueError):
    """Bytes that are not a table's state of this format; the message says why."""


class _DomainOnly(pickle.Unpickler):
    def find_class(self, module: str, name: str) -> Any:
        if (module, name) in _ALLOWED:
            return super().find_class(module, name)
        raise StateError(f"it names {module}.{name}, which is not part of a table's state")


def _load(data: bytes) -> Any:
    try:
        return _DomainOnly(io.BytesIO(data)).load()
    except StateError:
        raise
    except Exception as e:  # truncated, garbage: whatever pickle says
        raise StateError(f"it does not unpickle: {type(e).__name__}: {e}") from None


@contextmanager
def _no_gc() -> Iterator[None]:
    """Hundreds of thousands of objects are made at once: the cycle collector, run again and
    again while they are, would take most of the time (and none of them is garbage). They
    are then moved out of its sight (`gc.freeze`): the table's history lives as long as the
    service, and the collector need not walk it again and again."""
    was = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        gc.freeze()
        if was:
            gc.enable()


def settings_key(table_id: str, house: HouseRules, paytables: Mapping[str, PayTable]) -> dict[str, Any]:
    """What a snapshot must have been built with to be used: the format, the table and a
    digest of its house settings and pay tables."""
    text = json.dumps({"house": house.as_dict(),
                       "paytables": {k: repr(v) for k, v in sorted(paytables.items())}},
                      sort_keys=True)
    return {"format": FORMAT, "table": table_id,
            "settings": hashlib.sha256(text.encode()).hexdigest()[:16]}


@dataclass(frozen=True)
class _Table:
    """What a live table's state holds besides its shoes (one list of fields for both the
    state and its capture, so that the two cannot drift apart)."""

    seq: int
    shoe_seq: int | None
    phase: str
    problems: list[tuple[int, str]]
    events_applied: int
    alerts: list[dict[str, Any]]
    decisions: list[dict[str, Any]]
    #: Per shoe, the dealer of each game (DealerDuty.dealers); the dealer at the table.
    dealers: list[list[str | None]]
    dealer: str | None


@dataclass(frozen=True)
class TableState(_Table):
    """A live table at one seq of its log, the shoes restored from bytes."""

    shoes: list[Shoe]

    def machine(self) -> TableMachine:
        """A table machine in this state (the shoes are the state's own objects)."""
        machine = TableMachine(record=True)
        machine.shoes = self.shoes
        machine.shoe = self.shoes[-1] if self.shoes else None
        machine.phase = self.phase
        machine.problems = self.problems
        machine.events_applied = self.events_applied
        return machine


class ShoeBlobs:
    """Each shoe of a machine pickled, kept until the shoe is marked changed again."""

    def __init__(self) -> None:
        self._blobs: list[bytes | None] = []

    def changed(self, index: int) -> None:
        """Shoe `index` changed (or is new): pickle it again at the next capture."""
        if index < len(self._blobs):
            self._blobs[index] = None

    def capture(self, shoes: list[Shoe]) -> list[bytes]:
        """The shoes' bytes; only shoes changed since the last capture are pickled."""
        blobs = self._blobs
        blobs.extend([None] * (len(shoes) - len(blobs)))
        for i, blob in enumerate(blobs):
            if blob is None:
                blobs[i] = pickle.dumps(shoes[i], protocol=_PROTOCOL)
        return list(blobs)  # type: ignore[arg-type]

    def keep(self, blobs: list[bytes]) -> None:
        """Bytes just loaded are the shoes as they are: nothing to pickle until they change."""
        self._blobs = list(blobs)


@dataclass(frozen=True)
class Captured(_Table):
    """A state taken under the table's lock, to encode off it (nothing in it changes): the
    shoes as their bytes (`ShoeBlobs.capture`)."""

    shoes: list[bytes]

    def encode(self) -> bytes:
        """Its fields by name, the shoes as their bytes."""
        return pickle.dumps(dict(vars(self)), protocol=_PROTOCOL)


def decode(data: bytes, seq: int) -> tuple[TableState, list[bytes]]:
    """The state in `data` and its shoes' bytes (for `ShoeBlobs.keep`); StateError if
    `data` is not a table's state at log seq `seq`."""
    with _no_gc():
        outer = _load(data)
        if not isinstance(outer, dict) or not isinstance(outer.get("shoes"), list):
            raise StateError("it is not a table's state")
        blobs = outer["shoes"]
        shoes = [_load(blob) if isinstance(blob, bytes) else None for blob in blobs]
    if not all(isinstance(s, Shoe) and all(isinstance(g, Game) for g in s.games) for s in shoes):
        raise StateError("its shoes are not shoes")
    if outer.get("phase") not in (NO_SHOE, BURN, DEALING, BETWEEN):
        raise StateError(f"the table machine has no phase {outer.get('phase')!r}")
    try:
        state = TableState(**{**outer, "shoes": shoes})
    except TypeError as e:
        raise StateError(f"it is not a table's state: {e}") from None
    if state.seq != seq:
        raise StateError(f"its state stands at seq {state.seq!r}, not {seq}")
    return state, blobs
