"""The devices wired to a live table: the built-in shoe, the shoe link's feed, the camera.

Each turns what a device says into observations for `LiveTable.observe` and link changes for
`LiveTable.link_changed`, on its own thread. `bootstrap` builds them from the table's settings.
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable
from typing import Any

from dealer_assist.domain.events import parse_event
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.rules import POSITIONS
from dealer_assist.domain.table import BETWEEN, BURN, TableMachine
from dealer_assist.services.live_table import LiveTable, Refused
from dealer_assist.services.shoe_deal import DealError, deal_shoe
from dealer_assist.table_config import CameraConfig
from hardware.camera.deck import DeckModel
from hardware.camera.feed import CameraFeed, run_feed
from hardware.camera.recognize import Recognizer
from hardware.camera.source import FrameSource, SourceError
from hardware.camera.zones import load_zones
from hardware.shoe.adapters import gap_event
from hardware.shoe.adapters.reference import message_for
from hardware.shoe.emulator import ShoeEmulator, Step
from hardware.shoe.link import Received
from hardware.shoe.protocol import Button
from hardware.shoe.transport import PtyTransport

_log = logging.getLogger("dealer_assist")
Say = Callable[[str], None]

#: Pace of the built-in shoe at speed 1, in seconds before each kind of step.
PACE = {"shuffle": 8.0, "burn": 1.2, "betting": 12.0, "card": 1.6, "squeeze": 3.0,
        "between": 3.0, "cut": 1.0}


# ---- the built-in shoe --------------------------------------------------------------------

def emulator_script(events: list[dict[str, Any]]) -> list[Step]:
    """What the built-in shoe sends for a dealt shoe, paced like a real table at speed 1.

    The dealer presses REVEAL once the first cards of a game are out (the squeeze) and again
    after each third card: with no camera, that is how the display learns the cards are open.
    """
    machine = TableMachine(record=True)
    steps: list[Step] = []
    at = 0.0
    for obj in events:
        kind, phase = obj["type"], machine.phase
        if kind == "new_shoe":
            pause = 0.0
        elif kind == "bets_closed":
            pause = PACE["betting"]
        elif kind == "cut_card":
            pause = PACE["cut"]
        elif kind == "card":
            pause = PACE["burn"] if phase == BURN else PACE["between"] if phase == BETWEEN \
                else PACE["card"]
        else:
            pause = PACE["between"]
        at += pause
        message = message_for(obj, 0)
        if message is not None:
            steps.append(Step(at, message))
        for happened in machine.apply(parse_event(obj)):
            if happened.kind != "card_placed" or not isinstance(happened.data, tuple):
                continue
            shoe = machine.shoe
            game = shoe.current if shoe else None
            first_draw = 3 if shoe and shoe.house.variant == "7up" else 4
            if happened.data[0] in POSITIONS and game is not None \
                    and happened.game == game.number and len(game.cards) >= first_draw:
                at += PACE["squeeze"]
                steps.append(Step(at, Button(0, "REVEAL")))
    return steps


class BuiltInShoe:
    """The shoe emulator on a pseudo-terminal, dealing shoe after shoe (no hardware needed)."""

    def __init__(self, house: HouseRules, *, speed: float | None = 1.0, seed: int | None = None,
                 mistakes: tuple[str, ...] = (), shoes: int | None = None,
                 say: Say | None = None) -> None:
        self.house = house
        self.speed = speed
        self.mistakes = mistakes
        self.shoes = shoes
        self.say = say or (lambda text: None)
        self.rng = random.Random(seed)
        self.transport = PtyTransport()
        self.path = self.transport.open()
        self.shoes_dealt = 0
        self._stop = threading.Event()
        self._emulator: ShoeEmulator | None = None
        self._thread = threading.Thread(target=self._run, name="built-in shoe", daemon=True)

    def start(self) -> BuiltInShoe:
        self._thread.start()
        return self

    def _deal(self) -> list[dict[str, Any]]:
        try:
            return deal_shoe(self.rng, self.house, mistakes=self.mistakes)
        except DealError:
            return deal_shoe(self.rng, self.house)

    def _run(self) -> None:
        seq, first = 0, True
        while not self._stop.is_set() and (self.shoes is None or self.shoes_dealt < self.shoes):
            emulator = ShoeEmulator(self.transport, emulator_script(self._deal()),
                                    speed=self.speed, first_seq=seq)
            self._emulator = emulator
            if self._stop.is_set():
                break
            last = self.shoes is not None and self.shoes_dealt + 1 >= self.shoes
            pause = PACE["shuffle"] / self.speed if self.speed else 0.05
            emulator.run(linger=None if last else pause, wait_reader=first)
            seq, first = emulator.seq, False
            self.shoes_dealt += 1

    def stop(self) -> None:
        self._stop.set()
        if self._emulator is not None:
            self._emulator.stop()
        self._thread.join(3.0)
        self.transport.close()


def shoe_feed(table: LiveTable) -> Callable[[Received], None]:
    """What the shoe link hands over, into the live table (on the link's reader thread)."""

    def feed(item: Received) -> None:
        data = item.data
        try:
            if item.kind == "link":
                table.link_changed("shoe", data["status"], data["reason"], item.ts)
            elif item.kind == "problem":
                if data.get("error") == "gap":
                    table.observe({"ts": item.ts, **gap_event(data)})
                else:
                    table.link_problem("shoe", str(data.get("error")))
            else:
                table.observe({"ts": item.ts, **data})
        except Refused as e:
            _log.warning("shoe: %s", e)
        except Exception:  # the log could not take it: say so loudly, keep reading
            _log.exception("shoe: an event could not be recorded: %s", data)

    return feed


# ---- the overhead camera ------------------------------------------------------------------

class CameraWatch:
    """The overhead camera feeding the live table: frames -> sightings -> card_seen / card_lost.

    The frame source reconnects by itself and reports each change once; the display shows the
    camera's link as up while frames arrive, down while the source is lost or has ended.
    """

    def __init__(self, config: CameraConfig, table: LiveTable) -> None:
        assert config.deck is not None and config.zones is not None
        self.table = table
        self.recognize = Recognizer(DeckModel.load(config.deck))
        self.feed = CameraFeed(load_zones(config.zones), confirm_frames=config.confirm_frames,
                               lose_frames=config.lose_frames)
        self.source = FrameSource(config.source, on_state=self._state)
        self.frames_seen = 0
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._run, name="camera", daemon=True)

    def start(self) -> CameraWatch:
        self.table.link_changed("camera", "unknown", "waiting for the first frame")
        self._thread.start()
        return self

    def _state(self, state: str, detail: str) -> None:
        if state in ("lost", "gave_up", "back"):
            self.table.link_changed("camera", "up" if state == "back" else "down", detail)

    def _frames(self) -> Any:
        for frame in self.source:
            if self._stop.is_set():
                return
            if self.frames_seen == 0:
                self.table.link_changed("camera", "up", "frames arriving")
            self.frames_seen += 1
            yield frame

    def _run(self) -> None:
        try:
            for event in run_feed(self._frames(), self.recognize, self.feed):
                try:
                    self.table.observe(event)
                except Refused as e:
                    _log.warning("camera: %s", e)
        except SourceError as e:
            self.table.link_changed("camera", "down", str(e))
            return
        except Exception:  # a broken frame or model: say so, never take the table down
            _log.exception("camera: the feed stopped")
            self.table.link_changed("camera", "down", "the camera feed stopped on an error")
            return
        if not self._stop.is_set():
            self.table.link_changed("camera", "down", "the camera source ended")

    def stop(self) -> None:
        self._stop.set()
        self._thread.join(3.0)
