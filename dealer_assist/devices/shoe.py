"""The shoe at a live table: the shoe link's feed, and the built-in shoe that needs no hardware.

`ShoeFeed` reads the shoe's port (a real shoe by URL, or the built-in shoe's pseudo-terminal)
and hands every event to the live table; when the link goes down while a shoe is open, the
table logs the system's `interrupted` (`shoe_link_lost`, services/interruptions.py).
`BuiltInShoe` deals shoe after shoe (`devices.deal`) and plays each as the frames a real
shoe sends, paced by the deal's own `PACE`: every dealt step becomes its frame, and the
dealer's REVEAL press follows the steps the deal marks as a squeeze (with no camera, that is
how the display learns the cards are open).
Whoever follows the deal on the felt (the virtual overhead camera) is told each shoe and the
moment its script starts playing (`on_shoe`), and times its steps with `step_times`.
"""

from __future__ import annotations

import logging
import random
import threading
import time
from collections.abc import Callable

from dealer_assist.config import ShoeConfig
from dealer_assist.devices.deal.dealing import DealtShoe, deal_shoe_detailed
from dealer_assist.devices.deal.mistakes import DealError
from dealer_assist.devices.deal.pace import PACE, SHUFFLE, SQUEEZE
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.interruptions import SHOE_LINK_LOST
from dealer_assist.services.live_table import LiveTable
from dealer_assist.services.refusals import Refused
from hardware.shoe.adapters import gap_event
from hardware.shoe.adapters.reference import message_for
from hardware.shoe.emulator import ShoeEmulator, Step
from hardware.shoe.link import Received, ShoeLink
from hardware.shoe.protocol import Button
from hardware.shoe.transport import PtyTransport

_log = logging.getLogger("dealer_assist")
Say = Callable[[str], None]
#: Told each shoe the built-in shoe is about to play: the deal, the `time.monotonic()` its
#: script starts at, and the speed it plays at (None: as fast as the link takes it).
OnShoe = Callable[[DealtShoe, float, "float | None"], None]


def step_times(dealt: DealtShoe) -> list[tuple[float, float | None]]:
    """For each event of a dealt shoe, the second (at speed 1) the built-in shoe sends it, and
    the second of the dealer's REVEAL press after it (None where no REVEAL follows)."""
    times: list[tuple[float, float | None]] = []
    at = 0.0
    for step in dealt.steps:
        at += PACE[step.kind].live_s
        reveal = None
        if step.squeeze:
            reveal = at + PACE[SQUEEZE].live_s
        times.append((at, reveal))
        if reveal is not None:
            at = reveal
    return times


def shoe_frames(dealt: DealtShoe) -> list[Step]:
    """What the built-in shoe sends for a dealt shoe, paced like a real table at speed 1."""
    frames: list[Step] = []
    for event, (at, reveal) in zip(dealt.events, step_times(dealt), strict=True):
        message = message_for(event, 0)
        if message is not None:
            frames.append(Step(at, message))
        if reveal is not None:
            frames.append(Step(reveal, Button(0, "REVEAL")))
    return frames


class BuiltInShoe:
    """The shoe emulator on a pseudo-terminal, dealing shoe after shoe (no hardware needed)."""

    def __init__(self, house: HouseRules, *, speed: float | None = 1.0, seed: int | None = None,
                 mistakes: tuple[str, ...] = (), shoes: int | None = None,
                 say: Say | None = None, on_shoe: OnShoe | None = None) -> None:
        self.house = house
        self.speed = speed
        self.mistakes = mistakes
        self.shoes = shoes
        self.say = say or (lambda text: None)
        self.on_shoe = on_shoe
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

    def _deal(self) -> DealtShoe:
        try:
            return deal_shoe_detailed(self.rng, self.house, mistakes=self.mistakes)
        except DealError:
            return deal_shoe_detailed(self.rng, self.house)

    def _run(self) -> None:
        seq = 0
        if not self.transport.wait_reader(self._stop):  # the link has not opened the port yet
            return
        while not self._stop.is_set() and (self.shoes is None or self.shoes_dealt < self.shoes):
            dealt = self._deal()
            emulator = ShoeEmulator(self.transport, shoe_frames(dealt),
                                    speed=self.speed, first_seq=seq)
            self._emulator = emulator
            if self._stop.is_set():
                break
            last = self.shoes is not None and self.shoes_dealt + 1 >= self.shoes
            pause = PACE[SHUFFLE].live_s / self.speed if self.speed else 0.05
            if self.on_shoe is not None:
                try:
                    self.on_shoe(dealt, time.monotonic(), self.speed)
                except Exception:  # whoever follows the deal must never stop the shoe
                    _log.exception("built-in shoe: following the deal failed")
            emulator.run(linger=None if last else pause, wait_reader=False)
            seq = emulator.seq
            self.shoes_dealt += 1

    def stop(self) -> None:
        self._stop.set()
        if self._emulator is not None:
            self._emulator.stop()
        if self._thread.is_alive():  # never started when the table failed to open
            self._thread.join(3.0)
        self.transport.close()


class ShoeFeed:
    """The shoe link feeding the live table: every event, link change and problem the link
    reports goes to the table (on the link's reader thread)."""

    def __init__(self, config: ShoeConfig, url: str, table: LiveTable) -> None:
        self.table = table
        self.link = ShoeLink(url, adapter=config.adapter, baudrate=config.baudrate,
                             heartbeat_timeout=config.heartbeat_timeout, on_receive=self._receive)

    def start(self) -> ShoeFeed:
        self.link.start()
        return self

    def stop(self) -> None:
        self.link.stop()

    def _receive(self, item: Received) -> None:
        data = item.data
        try:
            if item.kind == "link":
                self.table.link_changed("shoe", data["status"], data["reason"], item.ts)
                if data["status"] == "down":  # a game being dealt may be cut short
                    self.table.interrupted(SHOE_LINK_LOST)
            elif item.kind == "problem":
                if data.get("error") == "gap":
                    self.table.observe({"ts": item.ts, **gap_event(data)})
                else:
                    self.table.link_problem("shoe", str(data.get("error")))
            else:
                self.table.observe({"ts": item.ts, **data})
        except Refused as e:
            _log.warning("shoe: %s", e)
        except Exception:  # the log could not take it: say so loudly, keep reading
            _log.exception("shoe: an event could not be recorded: %s", data)
