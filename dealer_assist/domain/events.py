"""Trace events (table-trace.md) as immutable records (NamedTuples), and their validation from JSON objects.

`parse_event(obj)` turns one decoded JSON object into an event or raises TraceError saying
what is wrong; `event.as_dict()` gives the trace form back. Product-specific types
(`side_bet_alert`, `link_status`) are kept and carried through, the table machine ignores them.
The system's own `interrupted` (a restart, a lost shoe link, a replaced shoe) is an event of
the contract like the others: the table machine acts on it (domain/table.py).
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any, ClassVar, NamedTuple, cast

from dealer_assist.domain.cards import CANONICAL, CardError, parse_card
from dealer_assist.domain.excerpt import shown
from dealer_assist.domain.house import HouseRules, SettingsError
from dealer_assist.domain.rules import ZONES


class TraceError(ValueError):
    """An event that breaks the trace contract."""


def trace_time(moment: datetime) -> str:
    """`moment` as the trace writes times: ISO 8601 UTC with milliseconds and a Z
    (`2026-11-29T10:15:02.417Z`). A time without a time zone is refused."""
    if moment.utcoffset() is None:
        raise ValueError("a time stamp needs a time zone")
    utc = moment.astimezone(UTC)
    return utc.strftime("%Y-%m-%dT%H:%M:%S.") + f"{utc.microsecond // 1000:03d}Z"


class Event:
    """What every event has. Each event class is a NamedTuple of its fields (immutable, and cheap
    to make: an audit makes one per trace line) under this base. Events of different types never
    compare equal."""

    __slots__ = ()
    TYPE: ClassVar[str] = ""
    ts: str
    src: str

    def as_dict(self) -> dict[str, Any]:
        d: dict[str, Any] = {"ts": self.ts, "src": self.src, "type": self.TYPE}
        values = cast(tuple, self)
        for name, v in zip(cast(Any, self)._fields[2:], values[2:], strict=True):
            if v is not None and v is not False and v != ():
                d[name] = list(v) if isinstance(v, tuple) else v
        return d

    def __eq__(self, other: object) -> bool:
        return type(self) is type(other) and tuple.__eq__(cast(tuple, self), cast(tuple, other))

    def __ne__(self, other: object) -> bool:
        return not self == other

    def __hash__(self) -> int:
        return hash((type(self).__name__, tuple(cast(tuple, self))))


class _ShoeLoaded(NamedTuple):
    ts: str
    src: str
    shoe_id: str
    house: HouseRules


class ShoeLoaded(Event, _ShoeLoaded):
    __slots__ = ()
    TYPE = "new_shoe"

    def as_dict(self) -> dict[str, Any]:
        return {"ts": self.ts, "src": self.src, "type": self.TYPE, "shoe_id": self.shoe_id,
                **self.house.as_dict()}


class _BetsClosed(NamedTuple):
    ts: str
    src: str


class BetsClosed(Event, _BetsClosed):
    __slots__ = ()
    TYPE = "bets_closed"


class _ShoeEnded(NamedTuple):
    ts: str
    src: str


class ShoeEnded(Event, _ShoeEnded):
    __slots__ = ()
    TYPE = "end_shoe"


class _CardsRevealed(NamedTuple):
    ts: str
    src: str
    side: str | None = None


class CardsRevealed(Event, _CardsRevealed):
    __slots__ = ()
    TYPE = "reveal"


class _CardDealt(NamedTuple):
    ts: str
    src: str
    card: str
    multi: bool = False


class CardDealt(Event, _CardDealt):
    __slots__ = ()
    TYPE = "card"


class _UnreadableDealt(NamedTuple):
    ts: str
    src: str
    multi: bool = False


class UnreadableDealt(Event, _UnreadableDealt):
    __slots__ = ()
    TYPE = "unreadable"


class _CutCardOut(NamedTuple):
    ts: str
    src: str
    color: str


class CutCardOut(Event, _CutCardOut):
    __slots__ = ()
    TYPE = "cut_card"


class _FramesLost(NamedTuple):
    ts: str
    src: str
    missing: int | None


class FramesLost(Event, _FramesLost):
    __slots__ = ()
    TYPE = "gap"


class _CardSeen(NamedTuple):
    ts: str
    src: str
    card: str | None
    zone: str
    face: str


class CardSeen(Event, _CardSeen):
    __slots__ = ()
    TYPE = "card_seen"


class _CardLost(NamedTuple):
    ts: str
    src: str
    zone: str
    card: str | None
    opened: bool


class CardLost(Event, _CardLost):
    __slots__ = ()
    TYPE = "card_lost"

    def as_dict(self) -> dict[str, Any]:
        d = {"ts": self.ts, "src": self.src, "type": self.TYPE, "zone": self.zone, "opened": self.opened}
        if self.card is not None:
            d["card"] = self.card
        return d


DECISION_ACTIONS = ("accept", "void", "correct", "void_shoe")
#: The most characters a decision's reason may have (after runs of white space are made one
#: space): the live table's and the floor's rule, and the floor store's CHECK.
MAX_REASON = 500


class _DecisionMade(NamedTuple):
    ts: str
    src: str
    game: int
    action: str
    by: str
    reason: str
    player: tuple[str, ...] = ()
    banker: tuple[str, ...] = ()
    shoe_id: str | None = None


class DecisionMade(Event, _DecisionMade):
    __slots__ = ()
    TYPE = "decision"


#: Why the system's own interruption came (table-trace.md, `interrupted`).
INTERRUPT_REASONS = ("restart", "shoe_link_lost", "shoe_replaced")


class _Interrupted(NamedTuple):
    ts: str
    src: str
    reason: str


class Interrupted(Event, _Interrupted):
    """The table service stopped, lost the shoe, or the shoe was replaced while a game may
    have been in progress (written by the service when it finds out)."""

    __slots__ = ()
    TYPE = "interrupted"


class _Noted(NamedTuple):
    ts: str
    src: str
    kind: str
    fields: tuple[tuple[str, Any], ...]


class Noted(Event, _Noted):
    """A product event the table machine does not act on (alerts, link status): kept as is."""

    __slots__ = ()
    TYPE = "noted"

    def as_dict(self) -> dict[str, Any]:
        return {"ts": self.ts, "src": self.src, "type": self.kind, **dict(self.fields)}


NOTED_TYPES = frozenset({"side_bet_alert", "link_status"})

# ---- validation -------------------------------------------------------------------------


def _card(obj: dict[str, Any], key: str = "card") -> str:
    try:
        return parse_card(obj[key])
    except KeyError:
        raise TraceError(f"missing field {key!r}") from None
    except CardError as e:
        raise TraceError(str(e)) from None


def _choice(obj: dict[str, Any], key: str, allowed: tuple[str, ...] | frozenset[str]) -> str:
    v = obj.get(key)
    if v not in allowed:
        raise TraceError(f"field {key!r} must be one of {', '.join(sorted(allowed))}, got {shown(v)}")
    return v  # type: ignore[return-value]


def _int(obj: dict[str, Any], key: str, low: int = 0) -> int:
    v = obj.get(key)
    if not isinstance(v, int) or isinstance(v, bool) or v < low:
        raise TraceError(f"field {key!r} must be a whole number >= {low}, got {shown(v)}")
    return v


def _text(obj: dict[str, Any], key: str) -> str:
    v = obj.get(key)
    if not isinstance(v, str) or not v.strip():
        raise TraceError(f"field {key!r} must be a non-empty string, got {shown(v)}")
    return v


def _bool(obj: dict[str, Any], key: str, default: bool) -> bool:
    v = obj.get(key, default)
    if not isinstance(v, bool):
        raise TraceError(f"field {key!r} must be true or false, got {shown(v)}")
    return v


def _new_shoe(ts: str, src: str, obj: dict[str, Any]) -> Event:
    settings = {k: obj[k] for k in HouseRules.__dataclass_fields__ if k in obj}
    try:
        house = HouseRules(**settings)
    except SettingsError as e:
        raise TraceError(str(e)) from None
    shoe_id = obj.get("shoe_id", "")
    if not isinstance(shoe_id, str | int) or isinstance(shoe_id, bool):
        raise TraceError(f"field 'shoe_id' must be a string, got {shown(shoe_id)}")
    return ShoeLoaded(ts, src, str(shoe_id), house)


def _card_seen(ts: str, src: str, obj: dict[str, Any]) -> Event:
    face = _choice(obj, "face", ("up", "down"))
    card = _card(obj) if obj.get("card") is not None or face == "up" else None
    return CardSeen(ts, src, card, _choice(obj, "zone", ZONES), face)


def _card_lost(ts: str, src: str, obj: dict[str, Any]) -> Event:
    card = _card(obj) if obj.get("card") is not None else None
    return CardLost(ts, src, _choice(obj, "zone", ZONES), card, _bool(obj, "opened", False))


def _cards(obj: dict[str, Any], key: str) -> tuple[str, ...]:
    v = obj.get(key)
    if not isinstance(v, list) or not 0 < len(v) <= 3:
        raise TraceError(f"field {key!r} must be a list of 1 to 3 card codes, got {shown(v)}")
    try:
        return tuple(parse_card(c) for c in v)
    except CardError as e:
        raise TraceError(f"field {key!r}: {e}") from None


def _decision(ts: str, src: str, obj: dict[str, Any]) -> Event:
    action = _choice(obj, "action", DECISION_ACTIONS)
    player = _cards(obj, "player") if action == "correct" else ()
    banker = _cards(obj, "banker") if action == "correct" else ()
    shoe_id = obj.get("shoe_id")
    return DecisionMade(ts, src, _int(obj, "game", 1), action, _text(obj, "by"), _text(obj, "reason"),
                        player, banker, None if shoe_id is None else str(shoe_id))


def _interrupted(ts: str, src: str, obj: dict[str, Any]) -> Event:
    return Interrupted(ts, src, _choice(obj, "reason", INTERRUPT_REASONS))


def _gap(ts: str, src: str, obj: dict[str, Any]) -> Event:
    return FramesLost(ts, src, _int(obj, "missing", 0) if "missing" in obj else None)


_PARSERS = {
    "new_shoe": _new_shoe,
    "bets_closed": lambda ts, src, obj: BetsClosed(ts, src),
    "end_shoe": lambda ts, src, obj: ShoeEnded(ts, src),
    "reveal": lambda ts, src, obj: CardsRevealed(
        ts, src, _choice(obj, "side", ("player", "banker")) if obj.get("side") is not None else None),
    "card": lambda ts, src, obj: CardDealt(ts, src, _card(obj), _bool(obj, "multi", False)),
    "unreadable": lambda ts, src, obj: UnreadableDealt(ts, src),
    "cut_card": lambda ts, src, obj: CutCardOut(ts, src, _choice(obj, "color", ("blue", "yellow"))),
    "gap": _gap,
    "card_seen": _card_seen,
    "card_lost": _card_lost,
    "decision": _decision,
    "interrupted": _interrupted,
}
EVENT_TYPES = frozenset(_PARSERS) | NOTED_TYPES


def _timestamp(obj: dict[str, Any]) -> str:
    ts = obj.get("ts")
    if not isinstance(ts, str):
        raise TraceError("missing field 'ts'" if ts is None else f"field 'ts' must be a string, got {shown(ts)}")
    try:
        datetime.fromisoformat(ts)
    except ValueError:
        raise TraceError(f"field 'ts' is not an ISO 8601 time: {shown(ts)}") from None
    return ts


_fromisoformat = datetime.fromisoformat
_tuple_new = tuple.__new__


def parse_event(obj: Any) -> Event:
    """Validate one decoded JSON object of a trace and return its event."""
    kind = obj.get("type") if type(obj) is dict else None
    if kind == "card" or kind == "bets_closed":  # nearly all of a trace: the fast path
        ts, src, code = obj.get("ts"), obj.get("src"), obj.get("card")
        try:  # a well-formed event passes; any other is read again below, which names why
            fast: object = type(ts) is str and type(src) is str and src and _fromisoformat(ts)
        except ValueError:
            fast = False
        if fast and kind == "bets_closed":
            return _tuple_new(BetsClosed, (ts, src))
        code, multi = CANONICAL.get(code) if type(code) is str else None, obj.get("multi", False)
        if fast and code is not None and (multi is False or multi is True):  # the code's one copy
            return _tuple_new(CardDealt, (ts, src, code, multi))
    if not isinstance(obj, dict):
        raise TraceError(f"an event must be a JSON object, got {type(obj).__name__}")
    ts = _timestamp(obj)
    src = obj.get("src")
    if not isinstance(src, str) or not src:
        raise TraceError("missing field 'src'" if src is None else f"field 'src' must be a string, got {shown(src)}")
    kind = obj.get("type")
    if not isinstance(kind, str):
        raise TraceError("missing field 'type'" if kind is None
                         else f"field 'type' must be a string, got {shown(kind)}")
    parser = _PARSERS.get(kind)
    if parser is not None:
        return parser(ts, src, obj)
    if kind in NOTED_TYPES:
        return Noted(ts, src, kind, tuple((k, v) for k, v in obj.items() if k not in ("ts", "src", "type")))
    raise TraceError(f"unknown event type {shown(kind)}; known: {', '.join(sorted(EVENT_TYPES))}")
