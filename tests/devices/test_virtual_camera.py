"""The built-in shoe's virtual overhead camera: what lies where during a deal, its frames, and
the flags its camera mistakes raise at a live table.

The plumbing tests read the frames with `truth_recognizer`, a stand-in that reports what the
camera drew (test-only: it never looks at the pixels); the service test reads them with the
real recognizer, end to end through `open_table`.
"""

from __future__ import annotations

import contextlib
import random
import threading
import time
from collections.abc import Callable
from pathlib import Path

import numpy as np
import pytest

from dealer_assist.config import ShoeConfig, load_paytables
from dealer_assist.devices.deal.dealing import DealtShoe, deal_shoe_detailed
from dealer_assist.devices.shoe import BuiltInShoe, ShoeFeed
from dealer_assist.devices.virtual_camera import Layout, VirtualCamera, layout_script
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from dealer_assist.store.log import MemoryEventLog
from hardware.camera.feed import CameraFeed, run_feed
from hardware.camera.recognize import Sighting
from hardware.camera.virtual import Lying, OverheadRenderer
from hardware.camera.zones import Zones, load_zones

REPO = Path(__file__).resolve().parents[2]
ZONES = REPO / "config" / "camera_zones.toml"
CAMERA_FLAGS = {"WRONG_POSITION", "CARD_MISMATCH", "EXPOSED_DURING_BETTING", "DROPPED_OPENED",
                "CARD_OUT_OF_VIEW"}


@pytest.fixture(scope="module")
def zones() -> Zones:
    return load_zones(ZONES)


def snapshots(dealt: DealtShoe, step: float = 0.1) -> list[tuple[float, list]]:
    script = layout_script(dealt)
    layout = Layout(script)
    return [(t, layout.at(t)) for t in np.arange(0.0, script[-1].at + 1.0, step)]


@pytest.mark.parametrize("house", [HouseRules(), HouseRules(variant="7up", burn_after_each_game=True)],
                         ids=["standard", "7up-burn"])
def test_every_game_card_lies_in_its_box_and_is_opened_before_it_is_collected(
        house: HouseRules) -> None:
    dealt = deal_shoe_detailed(random.Random(8), house, mistakes=["unneeded_draw", "missed_draw"])
    seen: dict[str, tuple[str, bool]] = {}  # card key -> (zone, ever face up)
    for _, cards in snapshots(dealt):
        boxes = [c.zone for c in cards if c.zone != "discard"]
        assert len(boxes) == len(set(boxes)), cards  # never two cards in one box
        for c in cards:
            if c.zone != "discard":
                zone, up = seen.get(str(c.key), (c.zone, False))
                assert zone == c.zone  # a card never moves between boxes
                seen[str(c.key)] = (zone, up or c.face_up)
    in_boxes = [z for z, _ in seen.values()]
    assert len(in_boxes) == sum(len(g.player) + len(g.banker) for g in dealt.games)
    first = "banker1" if house.variant == "7up" else "player1"
    assert in_boxes.count(first) == len(dealt.games)
    # every card is opened while it lies there, but the one that completes a missed-draw game
    # (no REVEAL follows it: the next game had begun)
    assert sum(not up for _, up in seen.values()) <= 1
    assert snapshots(dealt)[-1][1] == []  # the shoe ends with an empty layout


def test_camera_mistakes_change_only_what_lies_on_the_felt() -> None:
    plain = deal_shoe_detailed(random.Random(4))
    dealt = deal_shoe_detailed(random.Random(4), mistakes=["wrong_box:2", "exposed_card:3"])
    assert dealt.camera_flags == [("WRONG_POSITION", 2), ("EXPOSED_DURING_BETTING", 3)]
    assert dealt.expected_flags == [("UNNEEDED_DRAW", 2), ("EARLY_DEAL", 3)]
    assert dealt.games[1].player == plain.games[1].player  # wrong_box leaves the trace alone
    swapped = {(c.zone, c.code) for _, cards in snapshots(dealt) for c in cards}
    game = dealt.games[1]
    assert ("banker2", game.player[1]) in swapped and ("player2", game.banker[1]) in swapped
    # game 3's first card lies face up in Player's box before its bets close
    closes = [i for i, e in enumerate(dealt.events) if e["type"] == "bets_closed"]
    early = dealt.events[closes[2] - 1]
    assert early["type"] == "card" and early["card"] == dealt.games[2].player[0]
    assert any(c.zone == "player1" and c.code == early["card"] and c.face_up
               for _, cards in snapshots(dealt) for c in cards)


def test_frames_are_drawn_again_the_same_from_the_seed(zones: Zones) -> None:
    dealt = deal_shoe_detailed(random.Random(2))

    def frames(seed: int) -> list[np.ndarray]:
        camera = VirtualCamera(zones, seed=seed, clock=lambda: 0.0)
        camera.follow(dealt, start=-60.0, speed=1.0)  # a minute into the shoe
        return [camera.frame(n) for n in range(3)]

    a, b, c = frames(5), frames(5), frames(6)
    assert a[0].shape == (1080, 1920, 3) and all(np.array_equal(x, y) for x, y in zip(a, b, strict=True))
    assert not np.array_equal(a[0], c[0])
    assert not np.array_equal(a[0], a[1])  # sensor noise differs frame to frame


def test_with_no_pace_the_camera_shows_the_empty_layout(zones: Zones) -> None:
    camera = VirtualCamera(zones, clock=lambda: 100.0)
    camera.follow(deal_shoe_detailed(random.Random(2)), start=0.0, speed=None)
    assert camera.lying() == []


def truth_recognizer(camera: VirtualCamera) -> Callable[[np.ndarray], list[Sighting]]:
    """TEST-ONLY stand-in for the recognizer: reports what the camera drew in its last frame,
    without looking at the frame. Used to test the plumbing apart from the recognizer."""

    def recognize(frame: np.ndarray) -> list[Sighting]:
        out = []
        for card in camera.shown:
            centre, _ = camera.renderer.placement(card)
            face = "up" if card.face_up and card.code else "down"
            out.append(Sighting(card.code if face == "up" else None, face, centre,
                                camera.renderer.quad(card), 1.0))
        return out

    return recognize


def watch(camera: VirtualCamera, recognize: Callable, zones: Zones, live: LiveTable) -> None:
    feed = CameraFeed(zones, confirm_frames=2, lose_frames=3)
    for event in run_feed(camera.frames(), recognize, feed):
        with contextlib.suppress(Refused):
            live.observe(event)


def deal_with_camera(zones: Zones, recognize_of: Callable, mistakes: tuple[str, ...],
                     until: Callable[[LiveTable], bool], speed: float, fps: float,
                     seconds: float) -> LiveTable:
    house = HouseRules()
    live = LiveTable(MemoryEventLog(), table_id="T1", house=house, paytables=load_paytables())
    camera = VirtualCamera(zones, fps=fps, seed=1)
    shoe = BuiltInShoe(house, speed=speed, seed=3, mistakes=mistakes, shoes=1,
                       on_shoe=camera.follow)
    feed = ShoeFeed(ShoeConfig(url=shoe.path), shoe.path, live).start()
    thread = threading.Thread(target=watch, args=(camera, recognize_of(camera), zones, live),
                              daemon=True)
    thread.start()
    shoe.start()
    try:
        deadline = time.monotonic() + seconds
        while not until(live):
            assert time.monotonic() < deadline, flags_of(live)
            time.sleep(0.05)
    finally:
        camera.stop()
        shoe.stop()
        feed.stop()
        thread.join(5)
    return live


def flags_of(live: LiveTable) -> list[tuple[str, int]]:
    shoe = live.machine.shoe
    return [] if shoe is None else [(f.code, g.number) for g in shoe.games for f in g.flags]


@pytest.mark.slow
def test_the_camera_mistakes_raise_their_flags_through_the_camera(zones: Zones) -> None:
    def done(live: LiveTable) -> bool:
        shoe = live.machine.shoe
        return shoe is not None and len(shoe.games) >= 4

    live = deal_with_camera(zones, truth_recognizer, ("wrong_box:1", "exposed_card:2"), done,
                            speed=8.0, fps=10.0, seconds=60)
    flags = flags_of(live)
    camera = [f for f in flags if f[0] in CAMERA_FLAGS]
    # both swapped cards lie in the wrong box; the early card lay face up while bets were open
    assert camera == [("WRONG_POSITION", 1)] * 2 + [("EXPOSED_DURING_BETTING", 2)], flags
    assert ("EARLY_DEAL", 2) in flags and ("UNNEEDED_DRAW", 1) in flags
    games = live.machine.shoe.games  # type: ignore[union-attr]
    assert all(p in g.revealed for g in games[:3] for p, _ in g.cards)


def test_the_virtual_camera_is_configured_with_the_built_in_shoe_only(tmp_path: Path) -> None:
    from dealer_assist.config import ConfigError, load_table_config

    shipped = load_table_config(REPO / "config" / "table.toml")
    assert shipped.camera.virtual and shipped.shoe.emulated  # make run shows the camera
    assert {"wrong_box", "exposed_card"} <= set(shipped.shoe.emulator_mistakes)
    path = tmp_path / "table.toml"
    camera = f'[camera]\nenabled = true\nsource = "virtual"\nzones = "{ZONES}"\n'
    path.write_text('[shoe]\nurl = "socket://10.0.0.7:7000"\n' + camera, encoding="utf-8")
    with pytest.raises(ConfigError, match='needs shoe.url = "emulator"'):
        load_table_config(path)
    # a file from before the learned recognizer names an enrolled deck: it still loads
    path.write_text(camera + 'deck = "gone.deck"\nfps = 8\n', encoding="utf-8")
    config = load_table_config(path).camera
    assert config.virtual and config.fps == 8.0 and config.deck == tmp_path / "gone.deck"


# ---- the real recognizer on the virtual camera's frames --------------------------------------


@pytest.fixture(scope="module")
def recognizer() -> Callable[[np.ndarray], list[Sighting]]:
    from hardware.camera.recognize import Recognizer

    return Recognizer()  # type: ignore[call-arg]


def layout(face_up: bool) -> list[Lying]:
    codes = ["KH", "TS", "7D", "QC", "AH", "9C"]
    boxes = ["player1", "banker1", "player2", "banker2", "player3", "banker3"]
    return [Lying(z, c, face_up, i) for i, (z, c) in enumerate(zip(boxes, codes, strict=True))]


@pytest.mark.slow
def test_face_down_drawn_cards_never_come_out_as_a_card(zones: Zones, recognizer: Callable) -> None:
    for seed in range(3):
        renderer = OverheadRenderer(zones, seed=seed)
        frame = renderer.render([Lying("discard", None, False, -1), *layout(False)], seed)
        assert [s.card for s in recognizer(frame) if s.card is not None] == []


@pytest.mark.slow
def test_the_recognizer_reads_the_drawn_cards_where_they_lie(zones: Zones,
                                                             recognizer: Callable) -> None:
    renderer = OverheadRenderer(zones, seed=7)
    cards = layout(True)
    read = {(s.card, zones.zone_of(s.center)) for s in recognizer(renderer.render(cards, 0))
            if s.face == "up"}
    assert read == {(c.code, c.zone) for c in cards}


@pytest.mark.slow
def test_a_short_service_run_raises_a_wrong_box_flag_through_the_camera(tmp_path: Path) -> None:
    """End to end: `open_table` with the built-in shoe and its virtual camera, the real
    recognizer reading the frames, the table machine flagging what the camera saw."""
    from dataclasses import replace

    from dealer_assist.bootstrap import open_table
    from dealer_assist.config import load_table_config

    path = tmp_path / "table.toml"
    path.write_text(f"""
[table]
id = "T8"
database = "var/T8.events.db"
users = "var/users.db"
[shoe]
url = "emulator"
emulator_speed = 2.0
emulator_seed = 3
[camera]
enabled = true
source = "virtual"
zones = "{ZONES}"
confirm_frames = 2
lose_frames = 3
fps = 4.0
""", encoding="utf-8")
    config = load_table_config(path)
    config = replace(config, shoe=replace(config.shoe, emulator_mistakes=("wrong_box:1",)))
    table = open_table(config)
    try:
        assert table.camera is not None and table.virtual_camera is not None
        deadline = time.monotonic() + 90
        while ("WRONG_POSITION", 1) not in flags_of(table.live):
            assert time.monotonic() < deadline, (flags_of(table.live), table.live.links)
            time.sleep(0.1)
        assert table.live.links["camera"]["status"] == "up"
        shoe = table.live.machine.shoe
        assert shoe is not None
        seen = [e for _, e in table.log.read() if e["type"] == "card_seen" and e.get("card")]
        dealt = {card for g in shoe.games for _, card in g.cards}
    finally:
        table.close()
    # the camera read the cards the shoe dealt, and flagged the two swapped ones only
    assert seen and {e["card"] for e in seen} <= dealt
    assert [f.code for f in shoe.games[0].flags if f.code in CAMERA_FLAGS] == ["WRONG_POSITION"] * 2
    assert not [f for g in shoe.games for f in g.flags if f.code == "CARD_MISMATCH"]
