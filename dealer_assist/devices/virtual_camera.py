"""The built-in shoe's overhead camera: frames of the cards it deals, lying on the layout.

With no hardware the table still has a camera to watch: the built-in shoe tells this device
each shoe it is about to play (`follow`, the shoe's `on_shoe`) and when its script starts; the
device works out what lies where at every moment of the deal (`layout_script`) and draws
frames of it a few times a second (`frames`) for `CameraWatch`, whose recognizer reads them
like any camera's frames. Nothing here tells the recognizer what a card is.

What lies where, at speed 1 (the built-in shoe's `step_times`; at another speed, scaled):

- burn cards and cards set aside between games go straight to the discard rack, a face-down
  pile that stays until the shoe ends;
- each game card lands face down in its box (the deal order of the rules) `HAND_S` after it
  leaves the shoe, and turns face up at the dealer's next REVEAL press;
- a game's cards are collected into the discard rack `SHOW_S` after the game's last card and
  its reveal, or just before the next thing out of the shoe or the next bets close;
- the camera mistakes of the deal (`deal.mistakes.CAMERA_MISTAKES`): in a `wrong_box` game the
  second Player and second Banker cards swap boxes; in an `exposed_card` game the card dealt
  before the bets close lies face up.

When the built-in shoe deals as fast as the link takes it (no speed), no hand could follow:
the camera shows the empty layout.
"""

from __future__ import annotations

import bisect
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import replace
from typing import NamedTuple

import numpy as np

from dealer_assist.devices.deal.dealing import DealtGame, DealtShoe
from dealer_assist.devices.deal.pace import BETWEEN_GAMES, BURN_CARD, END_SHOE, GAME_CARD
from dealer_assist.devices.shoe import step_times
from hardware.camera.virtual import Lying, OverheadRenderer
from hardware.camera.zones import Zones

HAND_S = 0.3  # from the shoe to the box
SHOW_S = 4.0  # the opened cards lie on the layout this long before they are collected
BEFORE_NEXT_S = 0.2  # collected at the latest this long before the next step
PILE_KEY = -1  # the discard pile's identity


class Change(NamedTuple):
    """One change on the felt at `at` seconds of the script (speed 1): `put` a card (replacing
    one with the same key), `turn` a card face up, `take` a card away, or show the discard
    `pile` (card None) or clear it."""

    at: float
    what: str  # "put", "turn", "take", "pile", "clear"
    card: Lying | None = None
    key: int = 0


def deal_zones(game: DealtGame, seven_up: bool) -> list[str]:
    """The boxes a game's cards land in, in the order they come out of the shoe."""
    first = ["banker1", "player2", "banker2"] if seven_up else [
        "player1", "banker1", "player2", "banker2"]
    player_third = len(game.player) > (1 if seven_up else 2)  # 7up's fixed 7 is not listed
    zones = first + (["player3"] if player_third else [])
    zones += ["banker3"] if len(game.banker) > 2 else []
    if "wrong_box" in game.mistakes:
        zones = [{"player2": "banker2", "banker2": "player2"}.get(z, z) for z in zones]
    return zones


def layout_script(dealt: DealtShoe, shoe: int = 0) -> list[Change]:
    """Every change on the felt during a dealt shoe, in time order (see the module's doc).

    `shoe` numbers the shoes a camera follows, so that every card has its own identity.
    """
    times = step_times(dealt)
    seven_up = dealt.house.variant == "7up"
    changes: list[Change] = []
    games = iter(dealt.games)
    game: DealtGame | None = None
    zones: list[str] = []
    on_felt: list[int] = []  # keys of the current game's cards on the layout
    pile = False

    def collect(upto: float) -> None:
        nonlocal on_felt
        if on_felt:
            last = max(c.at for c in changes if c.key in on_felt)
            at = min(last + SHOW_S, upto - BEFORE_NEXT_S)
            changes.extend(Change(at, "take", key=k) for k in on_felt)
            on_felt = []

    for index, (event, step, (at, reveal)) in enumerate(
            zip(dealt.events, dealt.steps, times, strict=True)):
        key = shoe * 10_000 + index
        if step.kind == END_SHOE:
            collect(at)
            changes.append(Change(at + HAND_S, "clear", key=PILE_KEY))
            pile = False
            continue
        if event["type"] != "card":
            if event["type"] == "bets_closed" and game is not None and not zones:
                collect(at)  # the game is complete: collected before the next bets close
            continue
        if step.kind in (BURN_CARD, BETWEEN_GAMES):
            if game is not None and not zones:
                collect(at)
            if not pile:
                changes.append(Change(at + HAND_S, "pile", Lying("discard", None, False,
                                                                 PILE_KEY), PILE_KEY))
                pile = True
            continue
        if step.kind != GAME_CARD:
            continue
        if not zones:  # the first card of the next game
            collect(at)
            game = next(games)
            zones = deal_zones(game, seven_up)
            first_of_game = True
        else:
            first_of_game = False
        zone = zones.pop(0)
        face_up = first_of_game and "exposed_card" in game.mistakes  # type: ignore[union-attr]
        changes.append(Change(at + HAND_S, "put", Lying(zone, event["card"], face_up, key), key))
        on_felt.append(key)
        if reveal is not None:
            changes.extend(Change(reveal + HAND_S, "turn", key=k) for k in on_felt)
    changes.sort(key=lambda c: c.at)  # stable: a card is put before it is turned
    return changes


class Layout:
    """What lies on the felt at a moment: the changes of a script applied up to it."""

    def __init__(self, script: list[Change]) -> None:
        self.script = script
        self._times = [c.at for c in script]
        self._done = 0
        self._cards: dict[int, Lying] = {}

    def at(self, t: float) -> list[Lying]:
        """The cards on the felt `t` seconds into the script (t only ever grows)."""
        upto = bisect.bisect_right(self._times, t)
        for change in self.script[self._done:upto]:
            if change.what in ("put", "pile"):
                assert change.card is not None
                self._cards[change.key] = change.card
            elif change.what == "turn" and change.key in self._cards:
                self._cards[change.key] = replace(self._cards[change.key], face_up=True)
            elif change.what in ("take", "clear"):
                self._cards.pop(change.key, None)
        self._done = max(self._done, upto)
        pile = [c for k, c in self._cards.items() if k == PILE_KEY]
        return pile + [c for k, c in self._cards.items() if k != PILE_KEY]


class VirtualCamera:
    """Frames of the built-in shoe's layout, a few a second (see the module's docstring)."""

    def __init__(self, zones: Zones, *, fps: float = 4.0, seed: int = 0,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.renderer = OverheadRenderer(zones, seed=seed)
        self.fps = fps
        self.clock = clock
        self.shown: list[Lying] = []  # what the last frame showed
        self._lock = threading.Lock()
        self._layout: Layout | None = None
        self._start = 0.0
        self._speed: float | None = None
        self._shoes = 0
        self._stop = threading.Event()

    def follow(self, dealt: DealtShoe, start: float, speed: float | None) -> None:
        """The built-in shoe starts playing `dealt` at `start` (`clock()` time) at `speed`."""
        script = layout_script(dealt, self._shoes)
        with self._lock:
            self._shoes += 1
            self._layout = Layout(script) if speed else None
            self._start, self._speed = start, speed

    def lying(self, now: float | None = None) -> list[Lying]:
        """The cards on the felt now."""
        now = self.clock() if now is None else now
        with self._lock:
            if self._layout is None or not self._speed:
                return []
            return self._layout.at((now - self._start) * self._speed)

    def frame(self, number: int, now: float | None = None) -> np.ndarray:
        self.shown = self.lying(now)
        return self.renderer.render(self.shown, number)

    def frames(self) -> Iterator[np.ndarray]:
        """Frames at `fps` until `stop()`; a frame asked for late is drawn at once, for the
        moment it is asked (frames are skipped, never queued)."""
        period = 1.0 / self.fps
        due = self.clock()
        number = 0
        while not self._stop.is_set():
            wait = due - self.clock()
            if wait > 0 and self._stop.wait(wait):
                return
            yield self.frame(number)
            number += 1
            due = max(due + period, self.clock())

    def stop(self) -> None:
        self._stop.set()
