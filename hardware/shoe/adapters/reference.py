"""The reference protocol adapter (shoe-protocol.md): frames <-> trace-form dicts."""

from __future__ import annotations

from typing import Any

from hardware.shoe.protocol import (
    Button,
    Card,
    CutCard,
    Decoder,
    Heartbeat,
    Message,
    Problem,
    Unreadable,
    encode,
)

#: Shoe button -> the dealer event it stands for.
BUTTON_EVENTS = {
    "NEWSHOE": "new_shoe",
    "CLOSE": "bets_closed",
    "REVEAL": "reveal",
    "ENDSHOE": "end_shoe",
}
EVENT_BUTTONS = {v: k for k, v in BUTTON_EVENTS.items()}
COLORS = {"B": "blue", "Y": "yellow"}
COLOR_CODES = {v: k for k, v in COLORS.items()}


def event_of(item: Message | Problem) -> dict[str, Any] | None:
    """The trace-form dict of a decoded message or problem; None for a heartbeat."""
    if isinstance(item, Card):
        if item.multi:
            return {"src": "shoe", "type": "card", "card": item.card, "multi": True, "seq": item.seq}
        return {"src": "shoe", "type": "card", "card": item.card, "seq": item.seq}
    if isinstance(item, Button):
        return {"src": "dealer", "type": BUTTON_EVENTS[item.button], "seq": item.seq}
    if isinstance(item, Problem):
        return item.as_dict()
    if isinstance(item, Unreadable):
        event: dict[str, Any] = {"src": "shoe", "type": "unreadable", "seq": item.seq}
        if item.multi:
            event["multi"] = True
        return event
    if isinstance(item, CutCard):
        return {"src": "shoe", "type": "cut_card", "color": COLORS[item.color], "seq": item.seq}
    return None  # Heartbeat


def message_for(event: dict[str, Any], seq: int) -> Message | None:
    """The frame message a shoe sends for a trace event; None for events no shoe sends."""
    kind = event.get("type")
    if kind == "card":
        return Card(seq, event["card"], bool(event.get("multi", False)))
    if kind == "unreadable":
        return Unreadable(seq, bool(event.get("multi", False)))
    if kind == "cut_card":
        return CutCard(seq, COLOR_CODES[event["color"]])
    if event.get("src") == "dealer" and kind in EVENT_BUTTONS:
        return Button(seq, EVENT_BUTTONS[kind])
    return None


def heartbeat(seq: int) -> bytes:
    return encode(Heartbeat(seq))


class ReferenceAdapter:
    name = "reference"

    def __init__(self) -> None:
        self.decoder = Decoder()

    @property
    def frames(self) -> int:
        return self.decoder.counts["accepted"]

    def feed(self, data: bytes) -> list[dict[str, Any]]:
        return _events(self.decoder.feed(data))

    def flush(self) -> list[dict[str, Any]]:
        return _events(self.decoder.flush())

    def link_broke(self) -> list[dict[str, Any]]:
        return _events(self.decoder.link_broke())

    def report_noise(self) -> list[dict[str, Any]]:
        return _events(self.decoder.report_noise())


def _events(items: list[Message | Problem] | list[Problem]) -> list[dict[str, Any]]:
    out = []
    for item in items:
        event = event_of(item)
        if event is not None:
            out.append(event)
    return out


def create() -> ReferenceAdapter:
    return ReferenceAdapter()
