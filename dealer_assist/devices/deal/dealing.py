"""Deal a freshly shuffled shoe by the rules, as trace events, with the mistakes asked for.

Theory of operation. The shoe is `decks` x 52 cards shuffled by `rng`, with the blue cut card
placed 14-20 cards from the back. Dealing takes things off the front: the new-shoe burn (the
face-up card, then its burn value in more cards), then for every game `bets_closed` and the
cards the rules ask for (`rules.next_position`), then the burn after the game when the house
burns one. Whenever the next thing out is the cut card, a `cut_card` event is emitted: the game
being dealt, or the next one when it comes out between games, is the shoe's last. After the last
game comes `end_shoe`.

Each event is also a step of the deal (devices/deal/pace.py: what it is at the table, whether
the dealer reveals after it, and its pace); the mistakes, and the game each is made on, are
devices/deal/mistakes.py's. Only `rng` makes a choice: the same seed deals the same shoe.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, ParamSpec

from dealer_assist.devices.deal.mistakes import (
    CAMERA_FLAGS,
    MISTAKE_FLAGS,
    DealError,
    GameMistakes,
    Mistake,
    MistakePlan,
    as_mistakes,
)
from dealer_assist.devices.deal.pace import (
    BETTING,
    BETWEEN_GAMES,
    BURN_CARD,
    CUT_CARD,
    EARLY_CLOSE,
    END_SHOE,
    GAME_CARD,
    NEW_SHOE,
    PACE,
    REVEAL,
    SQUEEZED_CARD,
    STEPS,
    DealtStep,
    TraceClock,
)
from dealer_assist.domain.cards import CARD_CODES, CARD_VALUE, burn_value
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.rules import SEVEN_UP_FIXED_VALUE, next_position

#: Cards left behind the blue cut card.
CUT_CARD_DEPTH = (14, 20)

_P = ParamSpec("_P")


@dataclass(slots=True)
class DealtGame:
    """One game as dealt: physical cards in position order (7up's fixed 7 not listed)."""

    game: int
    player: list[str] = field(default_factory=list)
    banker: list[str] = field(default_factory=list)
    last: bool = False
    mistakes: list[str] = field(default_factory=list)


@dataclass(slots=True)
class DealtShoe:
    """Everything about a dealt shoe: the trace events and what the dealer did, game by game."""

    shoe_id: str
    house: HouseRules
    burn: list[str]
    burn_required: int
    games: list[DealtGame]
    events: list[dict[str, Any]]
    #: The step each event is, index for index.
    steps: list[DealtStep]
    #: The flags the mistakes must raise: (code, game number, or None for the shoe).
    expected_flags: list[tuple[str, int | None]]
    #: The flags the camera mistakes must raise through a camera that follows the deal.
    camera_flags: list[tuple[str, int | None]] = field(default_factory=list)


def deal_shoe_detailed(
    rng: random.Random,
    house: HouseRules | None = None,
    shoe_id: str = "S1",
    mistakes: Iterable[Mistake | str] = (),
    start: datetime | None = None,
    reveal: bool = False,
) -> DealtShoe:
    """A freshly shuffled shoe dealt by the rules (the module's docstring): its trace events,
    and also the games, the burn and the flags the mistakes must raise.

    With `reveal`, the dealer presses REVEAL (a `reveal` event) once each game is complete.
    """
    house = house or HouseRules()
    wanted = as_mistakes(mistakes)
    clock = TraceClock(start or datetime.now(UTC))
    cards = list(CARD_CODES) * house.decks
    rng.shuffle(cards)
    cut_at = len(cards) - rng.randint(*CUT_CARD_DEPTH)  # cards dealt before the cut card comes out
    deal = _Deal(cards, cut_at, clock, house, MistakePlan(wanted, rng, cut_at), reveal)
    deal.dealer(NEW_SHOE, "new_shoe", shoe_id=shoe_id, decks=house.decks, variant=house.variant,
                burn_after_each_game=house.burn_after_each_game)
    burn, required = deal.burn()
    while deal.last is None or len(deal.games) < deal.last + deal.plan.after_last:
        deal.game(len(deal.games) + 1)
    deal.dealer(END_SHOE, "end_shoe")
    deal.plan.check_made(deal.last)
    return DealtShoe(shoe_id, house, burn, required, deal.games, deal.events, deal.steps,
                     deal.expected, deal.camera)


def _events_of(deal: Callable[_P, DealtShoe]) -> Callable[_P, list[dict[str, Any]]]:
    def events(*args: _P.args, **kwargs: _P.kwargs) -> list[dict[str, Any]]:
        return deal(*args, **kwargs).events
    return events


#: The trace events of a freshly shuffled shoe dealt by the rules: `deal_shoe_detailed`, with
#: the same arguments, but only its events.
deal_shoe = _events_of(deal_shoe_detailed)


class _Deal:
    """A shoe being dealt: its cards and where the next one is, and what is dealt so far."""

    def __init__(self, cards: list[str], cut_at: int, clock: TraceClock, house: HouseRules,
                 plan: MistakePlan, reveal: bool) -> None:
        self.cards, self.cut_at, self.clock, self.house = cards, cut_at, clock, house
        self.plan, self.reveal = plan, reveal
        self.pos = 0  # index of the next card in `cards`
        self.cut_out = False
        self.events: list[dict[str, Any]] = []
        self.steps: list[DealtStep] = []
        self.games: list[DealtGame] = []
        self.expected: list[tuple[str, int | None]] = []
        self.camera: list[tuple[str, int | None]] = []
        #: The shoe's last game (None until the cut card is out).
        self.last: int | None = None
        #: The dealer closed this game's bets before the last game was complete.
        self.closed_early = False

    def append(self, kind: str, event: dict[str, Any]) -> None:
        self.events.append(event)
        self.steps.append(STEPS[kind])

    def dealer(self, kind: str, type_: str, **fields: Any) -> None:
        """The dealer presses a button (new shoe, bets closed, reveal, end of shoe)."""
        self.append(kind, {"ts": self.clock.ts(kind), "src": "dealer", "type": type_, **fields})

    def draw(self, kind: str, multi: bool = False) -> str:
        """The next card out of the shoe (the cut card first, when it is next)."""
        card_ms = PACE[kind].trace_ms
        if self.pos == self.cut_at and not self.cut_out:
            self.cut_out = True
            self.append(CUT_CARD, {"ts": self.clock.after(card_ms), "src": "shoe",
                                   "type": "cut_card", "color": "blue"})
            card_ms = PACE[GAME_CARD].trace_ms
        if self.pos >= len(self.cards):
            raise DealError(f"the shoe of {len(self.cards)} cards ran out; deal more decks")
        card = self.cards[self.pos]
        self.pos += 1
        event: dict[str, Any] = {"ts": self.clock.after(card_ms), "src": "shoe", "type": "card",
                                 "card": card}
        if multi:
            event["multi"] = True
        self.append(kind, event)
        return card

    def burn(self) -> tuple[list[str], int]:
        """The new-shoe burn (one short with `short_burn`): its cards, and how many it needs."""
        first = self.draw(BURN_CARD)
        required = 1 + burn_value(first, self.house.ace_burns)
        short = self.plan.short_burn
        burn = [first] + [self.draw(BURN_CARD) for _ in range(required - 1 - short)]
        if short:
            self.expected.append(("BURN_SHORT", None))
        return burn, required

    def game(self, number: int) -> None:
        """Game `number`: its bets close, its cards, its mistakes, the burn after it."""
        if self.cut_out and self.last is None:
            self.last = number  # the cut card came out between games: this game is the last
        before = self.games[-1].mistakes if self.games else None
        mistakes = self.plan.game(number, before, self.closed_early)
        kinds = mistakes.kinds
        game = DealtGame(number, mistakes=kinds)
        if self.last is not None and number > self.last:
            kinds.append("deal_after_last_game")
        if mistakes.exposed:  # a card set aside, then this game's first card before its bets close
            self.draw(BETWEEN_GAMES)
            self.expected += [("UNNEEDED_DRAW", number - 1), ("EARLY_DEAL", number)]
        elif not self.closed_early:
            self.dealer(BETTING, "bets_closed")
        self.closed_early = False
        self._cards(game, mistakes)
        if "unneeded_draw" in kinds and number == self.last:
            mistakes.leave_out("unneeded_draw",
                               f"unneeded_draw on game {number}: that is the shoe's last game")
        if self.reveal:
            self.dealer(REVEAL, "reveal")
        game.last = number == self.last
        self.games.append(game)
        self.expected += [(MISTAKE_FLAGS[k], number) for k in kinds if k in MISTAKE_FLAGS]
        self.camera += [(CAMERA_FLAGS[k], number) for k in kinds if k in CAMERA_FLAGS]
        if "unneeded_draw" in kinds:
            self.draw(BETWEEN_GAMES)
        more = self.last is None or len(self.games) < self.last + self.plan.after_last
        if self.house.burn_after_each_game and (more or "unneeded_draw" in kinds):
            if self.closed_early:  # bets are closed already: the dealer leaves the burn out
                self.expected.append(("BURN_MISSING", number + 1))
            else:
                self.draw(BETWEEN_GAMES)

    def _cards(self, game: DealtGame, mistakes: GameMistakes) -> None:
        """The game's cards, in the order the rules give them."""
        number, kinds = game.game, mistakes.kinds
        seven_up = self.house.variant == "7up"
        first_draw = 3 if seven_up else 4  # cards dealt before any third card
        p_vals: list[int] = [SEVEN_UP_FIXED_VALUE] if seven_up else []
        b_vals: list[int] = []
        skip_draw = "missed_draw" in kinds
        multi_pull = "cards_pulled_together" in kinds
        dealt = 0
        position = next_position(p_vals, b_vals)
        while position is not None:
            if skip_draw and dealt == first_draw and number == self.last:
                mistakes.leave_out("missed_draw",
                                   f"missed_draw on game {number}: that is the shoe's last game")
                skip_draw = False
            if skip_draw and dealt == first_draw:
                # The dealer closes the next game's bets before the third card; the system
                # holds that close, the card comes out after it and completes this game.
                self.dealer(EARLY_CLOSE, "bets_closed")
                self.closed_early = True
            card = self.draw(GAME_CARD, multi=multi_pull and dealt == 1)
            if mistakes.exposed and dealt == 0:  # the early card is out: now the bets close
                self.dealer(BETTING, "bets_closed")
            if self.cut_out and self.last is None:
                self.last = number  # the cut card came out during this game: it is the last
            dealt += 1
            if position[0] == "P":
                p_vals.append(CARD_VALUE[card])
                game.player.append(card)
            else:
                b_vals.append(CARD_VALUE[card])
                game.banker.append(card)
            position = next_position(p_vals, b_vals)
            # The squeeze, then each third card: the dealer reveals, but not after the card
            # that completes a game whose next bets closed early (that next game has begun).
            if dealt >= first_draw and not (self.closed_early and position is None):
                self.steps[-1] = SQUEEZED_CARD
        if skip_draw and not self.closed_early:  # a game that needs no third card: move it on
            mistakes.move_on("missed_draw",
                             f"missed_draw on game {number}: that game needs no third card")
