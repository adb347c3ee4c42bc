"""The shoe at a live table: a dealt shoe as the built-in shoe's frames, and the built-in shoe
over a real pseudo-terminal, read by the shoe link's feed into a live table."""

from __future__ import annotations

import random
import time

import pytest

from dealer_assist.config import ShoeConfig, load_paytables
from dealer_assist.devices.deal.dealing import deal_shoe_detailed
from dealer_assist.devices.deal.pace import PACE, SQUEEZE
from dealer_assist.devices.shoe import BuiltInShoe, ShoeFeed, shoe_frames
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.store.log import MemoryEventLog
from hardware.shoe.protocol import Button, Card, CutCard


def test_every_dealt_step_becomes_its_frame_at_its_pace() -> None:
    dealt = deal_shoe_detailed(random.Random(4), HouseRules(variant="7up"))
    frames = shoe_frames(dealt)
    reveals = [f for f in frames if f.message == Button(0, "REVEAL")]
    assert len(reveals) == sum(s.squeeze for s in dealt.steps) > len(dealt.games)
    others = [f.message for f in frames if f not in reveals]
    cards = [e["card"] for e in dealt.events if e["type"] == "card"]
    assert [m.card for m in others if isinstance(m, Card)] == cards
    assert sum(isinstance(m, CutCard) for m in others) == 1
    assert others[0] == Button(0, "NEWSHOE") and others[-1] == Button(0, "ENDSHOE")
    total = sum(PACE[s.kind].live_s for s in dealt.steps) + len(reveals) * PACE[SQUEEZE].live_s
    assert frames[-1].at == pytest.approx(total)
    assert [f.at for f in frames] == sorted(f.at for f in frames)


def test_the_dealer_reveals_once_the_first_cards_of_7up_are_out() -> None:
    dealt = deal_shoe_detailed(random.Random(4), HouseRules(variant="7up"))
    frames = [f.message for f in shoe_frames(dealt)]
    close = frames.index(Button(0, "CLOSE"))
    assert [type(m).__name__ for m in frames[close + 1:close + 5]] == ["Card"] * 3 + ["Button"]
    assert frames[close + 4] == Button(0, "REVEAL")


def test_the_built_in_shoe_deals_a_whole_shoe_into_the_live_table() -> None:
    house = HouseRules(burn_after_each_game=True)
    live = LiveTable(MemoryEventLog(), table_id="T1", house=house, paytables=load_paytables())
    shoe = BuiltInShoe(house, speed=None, seed=17, mistakes=("unneeded_draw",), shoes=1)
    feed = ShoeFeed(ShoeConfig(url=shoe.path), shoe.path, live).start()
    shoe.start()
    try:
        deadline = time.monotonic() + 60
        while not (live.machine.shoe and live.machine.shoe.ended):
            assert time.monotonic() < deadline, "the built-in shoe did not finish its shoe"
            time.sleep(0.05)
    finally:
        shoe.stop()
        feed.stop()
    dealt = deal_shoe_detailed(random.Random(17), house, mistakes=["unneeded_draw"])
    table_shoe = live.machine.shoe
    assert table_shoe.burn == dealt.burn
    assert [(g.player, g.banker) for g in table_shoe.games] == [
        (g.player, g.banker) for g in dealt.games]
    flags = sorted((f.code, g.number) for g in table_shoe.games for f in g.flags
                   if f.code == "UNNEEDED_DRAW")
    assert flags and flags == [c for c in dealt.expected_flags if c[0] == "UNNEEDED_DRAW"]
    assert all(g.revealed for g in table_shoe.games)
    assert shoe.shoes_dealt == 1
