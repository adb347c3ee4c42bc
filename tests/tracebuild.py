"""A small builder of trace events for tests: `Trace().new_shoe().burn("3S", ...).close()...`."""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from typing import Any

from dealer_assist.services.audit import audit_lines

START = datetime(2026, 11, 29, 10, 0, tzinfo=UTC)


class Trace:
    def __init__(self) -> None:
        self.events: list[dict[str, Any]] = []

    def ev(self, src: str, type_: str, **fields: Any) -> Trace:
        ts = START + timedelta(milliseconds=250 * len(self.events))
        stamp = ts.strftime("%Y-%m-%dT%H:%M:%S.") + f"{ts.microsecond // 1000:03d}Z"
        self.events.append({"ts": stamp, "src": src, "type": type_, **fields})
        return self

    def new_shoe(self, shoe_id: str = "S1", **house: Any) -> Trace:
        return self.ev("dealer", "new_shoe", shoe_id=shoe_id, **house)

    def cards(self, *codes: str, multi: bool = False) -> Trace:
        for i, c in enumerate(codes):
            fields = {"multi": True} if multi and i > 0 else {}
            self.ev("shoe", "card", card=c, **fields)
        return self

    def burn(self, *codes: str) -> Trace:
        return self.cards(*codes)

    def close(self) -> Trace:
        return self.ev("dealer", "bets_closed")

    def game(self, *codes: str) -> Trace:
        return self.close().cards(*codes)

    def end(self) -> Trace:
        return self.ev("dealer", "end_shoe")

    def cut(self, color: str) -> Trace:
        return self.ev("shoe", "cut_card", color=color)

    def seen(self, card: str | None, zone: str, face: str = "up") -> Trace:
        fields: dict[str, Any] = {"zone": zone, "face": face}
        if card:
            fields["card"] = card
        return self.ev("camera", "card_seen", **fields)

    def lost(self, zone: str, opened: bool, card: str | None = None) -> Trace:
        fields: dict[str, Any] = {"zone": zone, "opened": opened}
        if card:
            fields["card"] = card
        return self.ev("camera", "card_lost", **fields)

    def decide(self, game: int, action: str, **more: Any) -> Trace:
        return self.ev("supervisor", "decision", game=game, action=action, by="S-104",
                       reason="checked on video", **more)

    def lines(self) -> list[str]:
        return [json.dumps(e) for e in self.events]

    def audit(self) -> dict[str, Any]:
        return audit_lines(self.lines())

    def shoe(self, index: int = 0) -> dict[str, Any]:
        return self.audit()["shoes"][index]

    def games(self) -> list[dict[str, Any]]:
        return self.shoe()["games"]


def codes(flags: list[dict[str, Any]]) -> list[str]:
    return [f["code"] for f in flags]


#: A ready new-shoe burn: a 2 turned up burns 2 more.
BURN3 = ("2S", "KS", "KH")
