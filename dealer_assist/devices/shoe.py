"""The shoe at a live table: the shoe link's feed, and the built-in shoe that needs no hardware.

`ShoeFeed` reads the shoe's port (a real shoe by URL, or the built-in shoe's pseudo-terminal)
and hands every event to the live table. `BuiltInShoe` deals shoe after shoe
(`services.shoe_deal`) and plays each as the frames a real shoe sends, paced by the deal's own
`PACE`: every dealt step becomes its frame, and the dealer's REVEAL press follows the steps the
deal marks as a squeeze (with no camera, that is how the display learns the cards are open).
"""

from __future__ import annotations

import logging
import random
import threading
from collections.abc import Callable

from dealer_assist.config import ShoeConfig
from dealer_assist.domain.house import HouseRules
from dealer_assist.services.live_table import LiveTable, Refused
from dealer_assist.services.shoe_deal import (
    PACE,
    SHUFFLE,
    SQUEEZE,
    DealError,
    DealtShoe,
    deal_shoe_detailed,
)
from hardware.shoe.adapters import gap_event
from hardware.shoe.adapters.reference import message_for
from hardware.shoe.emulator import ShoeEmulator, Step
from hardware.shoe.link import Received, ShoeLink
from hardware.shoe.protocol import Button
from hardware.shoe.transport import PtyTransport

_log = logging.getLogger("dealer_assist")
Say = Callable[[str], None]


def shoe_frames(dealt: DealtShoe) -> list[Step]:
    """What the built-in shoe sends for a dealt shoe, paced like a real table at speed 1."""
    frames: list[Step] = []
    at = 0.0
    for event, step in zip(dealt.events, dealt.steps, strict=True):
        at += PACE[step.kind].live_s
        message = message_for(event, 0)
        if message is not None:
            frames.append(Step(at, message))
        if step.squeeze:
            at += PACE[SQUEEZE].live_s
            frames.append(Step(at, Button(0, "REVEAL")))
    return frames


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

    def _deal(self) -> DealtShoe:
        try:
            return deal_shoe_detailed(self.rng, self.house, mistakes=self.mistakes)
        except DealError:
            return deal_shoe_detailed(self.rng, self.house)

    def _run(self) -> None:
        seq, first = 0, True
        while not self._stop.is_set() and (self.shoes is None or self.shoes_dealt < self.shoes):
            emulator = ShoeEmulator(self.transport, shoe_frames(self._deal()),
                                    speed=self.speed, first_seq=seq)
            self._emulator = emulator
            if self._stop.is_set():
                break
            last = self.shoes is not None and self.shoes_dealt + 1 >= self.shoes
            pause = PACE[SHUFFLE].live_s / self.speed if self.speed else 0.05
            emulator.run(linger=None if last else pause, wait_reader=first)
            seq, first = emulator.seq, False
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
