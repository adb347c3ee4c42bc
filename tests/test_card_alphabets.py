"""The two sides of the hardware contract speak one card alphabet and one zone list.

`hardware` may not import `dealer_assist`, so each side keeps its own; these tests hold them
equal, and check that what the drivers send is what the table accepts.
"""

from __future__ import annotations

import pytest

from dealer_assist.domain import cards as domain
from dealer_assist.domain.events import CardDealt, CardSeen, TraceError, parse_event
from dealer_assist.domain.rules import ZONES
from hardware import cards as drivers
from hardware.camera.model.spec import CLASSES, NOT_A_CARD
from hardware.shoe.protocol import Card, Decoder, encode

TS = "2026-11-29T10:15:02.417Z"


def test_the_drivers_alphabet_is_the_tables() -> None:
    assert (drivers.RANKS, drivers.SUITS) == (domain.RANKS, domain.SUITS)
    assert drivers.CARD_CODES == domain.CARD_CODES
    assert sorted(drivers.CODES_BY_SUIT) == sorted(domain.CARD_CODES)
    # the camera's reader names a card by the drivers' alphabet, in the suits' order
    assert (*drivers.CODES_BY_SUIT, NOT_A_CARD) == CLASSES and CLASSES[:2] == ("AS", "2S")


def test_the_drivers_zones_are_the_tables() -> None:
    assert drivers.ZONE_NAMES == ZONES


def test_every_card_the_shoe_sends_is_a_card_the_table_takes() -> None:
    data = b"".join(encode(Card(i, code)) for i, code in enumerate(drivers.CARD_CODES))
    messages = Decoder().feed(data)
    assert [m.card for m in messages] == list(domain.CARD_CODES)
    for message in messages:
        event = parse_event({"ts": TS, "src": "shoe", "type": "card", "card": message.card})
        assert event == CardDealt(TS, "shoe", message.card, False)


def test_every_zone_the_camera_names_is_a_zone_the_table_takes() -> None:
    for zone in drivers.ZONE_NAMES:
        event = parse_event({"ts": TS, "src": "camera", "type": "card_seen", "zone": zone,
                             "face": "down"})
        assert event == CardSeen(TS, "camera", None, zone, "down")


@pytest.mark.parametrize("card", [["QS"], "qs", "10D ", 7, None])
def test_a_card_outside_the_alphabet_is_a_trace_error(card: object) -> None:
    with pytest.raises(TraceError, match="card"):
        parse_event({"ts": TS, "src": "shoe", "type": "card", "card": card})
