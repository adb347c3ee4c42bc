"""Deal a freshly shuffled shoe by the rules, as trace events, with optional dealer mistakes.

The built-in shoe plays these events as frames, and the audit benchmark and tests use them as
known-good (or known-bad) shoes. Pure: a `random.Random` and the house rules in, events out.

Theory of operation. The shoe is `decks` x 52 cards shuffled by `rng`, with the blue cut card
placed 14-20 cards from the back. Dealing takes things off the front: the new-shoe burn (the
face-up card, then its burn value in more cards), then for every game `bets_closed` and the
cards the rules ask for (`rules.next_position`), then the burn after the game when the house
burns one. Whenever the next thing out is the cut card, a `cut_card` event is emitted: the game
being dealt, or the next one when it comes out between games, is the shoe's last. After the last
game comes `end_shoe`.

Each event is also a step of the deal (`DealtShoe.steps`): what kind of step it is at the table
(a burn card, betting, a game card, a card between games, the cut card...) and whether the
dealer presses REVEAL after it (the squeeze: once a game's first cards are out, 3 in `7up`
else 4, and after each third card). `PACE` times every kind of step, both in a dealt trace's
timestamps and on the built-in shoe.

Dealer mistakes (`MISTAKES`), each on one game (`kind:game`, or a game chosen with `rng` well
before the cut card, moved on to the next game where the mistake cannot happen; one that finds
no game before the last is not made, which `expected_flags` and the games' `mistakes` show):

- `unneeded_draw`: a surplus card after the game is complete (UNNEEDED_DRAW on that game).
- `missed_draw`: the dealer closes the next game's bets before drawing the game's third card;
  the system holds that close and the card, drawn after it, completes the game (MISSING_DRAW).
  Where the house burns after each game, that burn is then left out (BURN_MISSING next game).
- `short_burn`: the new-shoe burn stops one card short (BURN_SHORT on the shoe).
- `cards_pulled_together`: the game's second card comes out with its first (MULTI_PULL).
- `deal_after_last_game`: one more game is dealt after the last (DEAL_AFTER_LAST_GAME).

Camera mistakes (`CAMERA_MISTAKES`): what an overhead camera sees go wrong. They are kept out
of `MISTAKES` because a trace alone cannot show their flags; `DealtShoe.camera_flags` lists
what a camera that follows the deal (the built-in shoe's virtual camera) must raise.

- `wrong_box`: the dealer lays the game's second Player card in the second Banker box and
  that Banker card in the Player box (WRONG_POSITION once the cards are face up). The trace is
  the same as without the mistake.
- `exposed_card`: before the game's bets close, after a card set aside between games, the
  dealer deals the game's first card face up (the trace shows the surplus card: UNNEEDED_DRAW
  on the game before, and the early card: EARLY_DEAL; the camera sees it face up while bets
  are open: EXPOSED_DURING_BETTING). Never on game 1, nor after a game with `unneeded_draw`
  or `missed_draw` (a random one moves on to the next game that allows it).
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from dealer_assist.domain.cards import CARD_CODES, CARD_VALUE, burn_value
from dealer_assist.domain.house import HouseRules
from dealer_assist.domain.rules import SEVEN_UP_FIXED_VALUE, next_position

MISTAKES = (
    "unneeded_draw",
    "missed_draw",
    "short_burn",
    "cards_pulled_together",
    "deal_after_last_game",
)
#: Mistakes whose flags only a camera raises (the module's docstring).
CAMERA_MISTAKES = ("wrong_box", "exposed_card")
#: The flag each camera mistake raises through the camera (on its game).
CAMERA_FLAGS = {"wrong_box": "WRONG_POSITION", "exposed_card": "EXPOSED_DURING_BETTING"}
#: The flag each mistake raises, and whether it sits on a game (else on the shoe).
MISTAKE_FLAGS = {
    "unneeded_draw": "UNNEEDED_DRAW",
    "missed_draw": "MISSING_DRAW",
    "short_burn": "BURN_SHORT",
    "cards_pulled_together": "MULTI_PULL",
    "deal_after_last_game": "DEAL_AFTER_LAST_GAME",
}
#: Cards left behind the blue cut card.
CUT_CARD_DEPTH = (14, 20)

# The kinds of step in a deal: one per trace event, but SQUEEZE and SHUFFLE, which only the
# built-in shoe plays (the REVEAL press after a game's first cards; the pause between shoes).
NEW_SHOE = "new_shoe"
BURN_CARD = "burn_card"
BETTING = "betting"
EARLY_CLOSE = "early_close"
GAME_CARD = "game_card"
BETWEEN_GAMES = "between_games"
CUT_CARD = "cut_card"
REVEAL = "reveal"
END_SHOE = "end_shoe"
SQUEEZE = "squeeze"
SHUFFLE = "shuffle"


class Pace(NamedTuple):
    """The pause before a kind of step: in a dealt trace's timestamps, and on the built-in
    shoe at speed 1 (a livelier table than the traces record)."""

    trace_ms: int
    live_s: float


#: The pace of a deal, by kind of step. In a dealt trace the cut card comes out when its card
#: was due, and that card follows at a game card's pace; the built-in shoe gives the cut card
#: its own pause. EARLY_CLOSE is the `missed_draw` dealer closing bets before the third card.
PACE = {
    NEW_SHOE: Pace(0, 0.0),
    BURN_CARD: Pace(1_500, 1.2),
    BETTING: Pace(20_000, 12.0),
    EARLY_CLOSE: Pace(1_800, 12.0),
    GAME_CARD: Pace(1_800, 1.6),
    BETWEEN_GAMES: Pace(4_000, 3.0),
    CUT_CARD: Pace(0, 1.0),
    REVEAL: Pace(1_800, 3.0),
    END_SHOE: Pace(4_000, 3.0),
    SQUEEZE: Pace(0, 3.0),
    SHUFFLE: Pace(0, 8.0),
}


class DealtStep(NamedTuple):
    """What a trace event is at the table (a kind in `PACE`), and whether the dealer presses
    REVEAL after it."""

    kind: str
    squeeze: bool = False


_STEP = {kind: DealtStep(kind) for kind in PACE}  # the steps with no REVEAL after them, shared
_SQUEEZED_CARD = DealtStep(GAME_CARD, squeeze=True)


class DealError(ValueError):
    """A deal that cannot be made (bad mistake name or game, shoe too small)."""


@dataclass(frozen=True, slots=True)
class Mistake:
    """A dealer mistake; `game` None means a game chosen at random where it can happen."""

    kind: str
    game: int | None = None

    def __post_init__(self) -> None:
        if self.kind not in MISTAKES + CAMERA_MISTAKES:
            known = ", ".join(MISTAKES + CAMERA_MISTAKES)
            raise DealError(f"unknown dealer mistake {self.kind!r}; known: {known}")
        if self.game is not None and self.game < 1:
            raise DealError(f"mistake {self.kind}: game numbers start at 1, got {self.game}")


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


def parse_mistake(text: str) -> Mistake:
    """`unneeded_draw` or `unneeded_draw:12` (on game 12) -> Mistake."""
    kind, _, game = text.partition(":")
    if game and not game.isdigit():
        raise DealError(f"bad mistake {text!r}: write KIND or KIND:GAME, e.g. missed_draw:7")
    return Mistake(kind.strip(), int(game) if game else None)


def _as_mistakes(mistakes: Iterable[Mistake | str]) -> list[Mistake]:
    out = [m if isinstance(m, Mistake) else parse_mistake(m) for m in mistakes]
    kinds = [m.kind for m in out]
    for k in ("short_burn", "deal_after_last_game"):
        if kinds.count(k) > 1:
            raise DealError(f"mistake {k} can happen only once in a shoe")
    return out


class _Clock:
    """Event times: `start` plus a running offset, formatted as trace `ts` (UTC, ms, Z)."""

    __slots__ = ("ms", "_start_ms", "_day", "_day_text")

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is not None:
            start = start.astimezone(UTC).replace(tzinfo=None)
        midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
        self._start_ms = (start - midnight) // timedelta(milliseconds=1)
        self._day = midnight
        self._day_text = midnight.strftime("%Y-%m-%dT")
        self.ms = 0

    def ts(self, kind: str) -> str:
        return self.after(PACE[kind].trace_ms)

    def after(self, step_ms: int) -> str:
        self.ms += step_ms
        t = self._start_ms + self.ms
        if t >= 86_400_000:  # past midnight: move the day on
            days, t = divmod(t, 86_400_000)
            self._day += timedelta(days=days)
            self._day_text = self._day.strftime("%Y-%m-%dT")
            self._start_ms -= days * 86_400_000
        s, ms = divmod(t, 1000)
        m, s = divmod(s, 60)
        h, m = divmod(m, 60)
        return f"{self._day_text}{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z"


def deal_shoe(
    rng: random.Random,
    house: HouseRules | None = None,
    shoe_id: str = "S1",
    mistakes: Iterable[Mistake | str] = (),
    start: datetime | None = None,
    reveal: bool = False,
) -> list[dict[str, Any]]:
    """The trace events of a freshly shuffled shoe dealt by the rules (see the module doc).

    With `reveal`, the dealer presses REVEAL (a `reveal` event) once each game is complete.
    """
    return deal_shoe_detailed(rng, house, shoe_id, mistakes, start, reveal).events


def deal_shoe_detailed(
    rng: random.Random,
    house: HouseRules | None = None,
    shoe_id: str = "S1",
    mistakes: Iterable[Mistake | str] = (),
    start: datetime | None = None,
    reveal: bool = False,
) -> DealtShoe:
    """Like `deal_shoe`, and also the games, the burn and the flags the mistakes must raise."""
    house = house or HouseRules()
    wanted = _as_mistakes(mistakes)
    clock = _Clock(start or datetime.now(UTC))
    cards = list(CARD_CODES) * house.decks
    rng.shuffle(cards)
    n_cards = len(cards)
    cut_at = n_cards - rng.randint(*CUT_CARD_DEPTH)  # cards dealt before the cut card comes out
    events: list[dict[str, Any]] = []
    steps: list[DealtStep] = []

    def append(kind: str, event: dict[str, Any]) -> None:
        events.append(event)
        steps.append(_STEP[kind])

    append(NEW_SHOE, {
        "ts": clock.ts(NEW_SHOE), "src": "dealer", "type": "new_shoe", "shoe_id": shoe_id,
        "decks": house.decks, "variant": house.variant,
        "burn_after_each_game": house.burn_after_each_game,
    })
    pos = 0  # index of the next card in `cards`
    cut_out = False

    def draw(kind: str, multi: bool = False) -> str:
        nonlocal pos, cut_out
        card_ms = PACE[kind].trace_ms
        if pos == cut_at and not cut_out:
            cut_out = True
            append(CUT_CARD, {"ts": clock.after(card_ms), "src": "shoe", "type": "cut_card",
                              "color": "blue"})
            card_ms = PACE[GAME_CARD].trace_ms
        if pos >= n_cards:
            raise DealError(f"the shoe of {n_cards} cards ran out; deal more decks")
        card = cards[pos]
        pos += 1
        event: dict[str, Any] = {"ts": clock.after(card_ms), "src": "shoe", "type": "card", "card": card}
        if multi:
            event["multi"] = True
        append(kind, event)
        return card

    # The new-shoe burn.
    first = draw(BURN_CARD)
    required = 1 + burn_value(first, house.ace_burns)
    short = any(m.kind == "short_burn" for m in wanted)
    burn = [first] + [draw(BURN_CARD) for _ in range(required - 1 - short)]
    expected: list[tuple[str, int | None]] = [("BURN_SHORT", None)] if short else []

    # Games: plan the mistakes on games, then deal until the last game (and one more).
    plans, floating = _plan(wanted, rng, cut_at)
    after_last = any(m.kind == "deal_after_last_game" for m in wanted)
    seven_up = house.variant == "7up"
    first_draw = 3 if seven_up else 4  # cards dealt before any third card
    games: list[DealtGame] = []
    last: int | None = None
    closed_early = False  # the dealer closed this game's bets before the last game was complete
    camera: list[tuple[str, int | None]] = []
    while last is None or len(games) < last + after_last:
        number = len(games) + 1
        if cut_out and last is None:
            last = number  # the cut card came out between games: this game is the last
        floated = floating.pop(number, [])  # random mistakes: they wait for a game that allows them
        kinds = plans.pop(number, []) + floated
        if "missed_draw" in kinds and "unneeded_draw" in kinds:
            if "missed_draw" not in floated:
                raise DealError(f"game {number}: missed_draw and unneeded_draw cannot share a game")
            kinds.remove("missed_draw")
            floating.setdefault(number + 1, []).append("missed_draw")
        exposed = "exposed_card" in kinds
        if exposed and (number == 1 or closed_early or {"unneeded_draw", "missed_draw"}
                        & set(games[-1].mistakes)):
            kinds.remove("exposed_card")
            if "exposed_card" not in floated:
                raise DealError(f"exposed_card on game {number}: needs a game before it with "
                                "no unneeded_draw or missed_draw")
            floating.setdefault(number + 1, []).append("exposed_card")
            exposed = False
        game = DealtGame(number, mistakes=kinds)
        if last is not None and number > last:
            kinds.append("deal_after_last_game")
        if exposed:  # a card set aside, then this game's first card before its bets close
            draw(BETWEEN_GAMES)
            expected += [("UNNEEDED_DRAW", number - 1), ("EARLY_DEAL", number)]
        elif not closed_early:
            append(BETTING, {"ts": clock.ts(BETTING), "src": "dealer", "type": "bets_closed"})
        closed_early = False
        p_vals: list[int] = [SEVEN_UP_FIXED_VALUE] if seven_up else []
        b_vals: list[int] = []
        skip_draw = "missed_draw" in kinds
        multi_pull = "cards_pulled_together" in kinds
        dealt = 0
        position = next_position(p_vals, b_vals)
        while position is not None:
            if skip_draw and dealt == first_draw and number == last:
                if "missed_draw" not in floated:
                    raise DealError(f"missed_draw on game {number}: that is the shoe's last game")
                kinds.remove("missed_draw")  # a random one found no game for it: not made
                skip_draw = False
            if skip_draw and dealt == first_draw:
                # The dealer closes the next game's bets before the third card; the system
                # holds that close, the card comes out after it and completes this game.
                append(EARLY_CLOSE, {"ts": clock.ts(EARLY_CLOSE), "src": "dealer",
                                     "type": "bets_closed"})
                closed_early = True
            card = draw(GAME_CARD, multi=multi_pull and dealt == 1)
            if exposed and dealt == 0:  # the early card is out: now the bets close
                append(BETTING, {"ts": clock.ts(BETTING), "src": "dealer", "type": "bets_closed"})
            if cut_out and last is None:
                last = number  # the cut card came out during this game: it is the last
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
            if dealt >= first_draw and not (closed_early and position is None):
                steps[-1] = _SQUEEZED_CARD
        if skip_draw and not closed_early:  # a game that needs no third card: move the mistake
            kinds.remove("missed_draw")
            if "missed_draw" not in floated:
                raise DealError(f"missed_draw on game {number}: that game needs no third card")
            floating.setdefault(number + 1, []).append("missed_draw")
        if "unneeded_draw" in kinds and number == last:
            if "unneeded_draw" not in floated:
                raise DealError(f"unneeded_draw on game {number}: that is the shoe's last game")
            kinds.remove("unneeded_draw")
        if reveal:
            append(REVEAL, {"ts": clock.ts(REVEAL), "src": "dealer", "type": "reveal"})
        game.last = number == last
        games.append(game)
        expected += [(MISTAKE_FLAGS[k], number) for k in kinds if k in MISTAKE_FLAGS]
        camera += [(CAMERA_FLAGS[k], number) for k in kinds if k in CAMERA_FLAGS]
        if "unneeded_draw" in kinds:
            draw(BETWEEN_GAMES)
        more = last is None or len(games) < last + after_last
        if house.burn_after_each_game and (more or "unneeded_draw" in kinds):
            if closed_early:  # bets are closed already: the dealer leaves the burn out
                expected.append(("BURN_MISSING", number + 1))
            else:
                draw(BETWEEN_GAMES)
    append(END_SHOE, {"ts": clock.ts(END_SHOE), "src": "dealer", "type": "end_shoe"})
    if plans or floating:
        left = sorted({*plans, *floating})
        raise DealError(f"mistakes planned on game(s) {left}: the shoe had only {last} games")
    return DealtShoe(shoe_id, house, burn, required, games, events, steps, expected, camera)


def _plan(wanted: list[Mistake], rng: random.Random,
          cut_at: int) -> tuple[dict[int, list[str]], dict[int, list[str]]]:
    """(game -> mistakes on that game, game -> random mistakes that may move to a later game).

    Random games are picked well before the cut card (a shoe deals about a game per 5 cards).
    """
    fixed: dict[int, list[str]] = {}
    floating: dict[int, list[str]] = {}
    latest = max(1, cut_at // 6 - 3)
    free = list(range(1, latest + 1))  # random mistakes go on different games
    for m in wanted:
        if m.kind in ("short_burn", "deal_after_last_game"):
            continue
        if m.game is None:
            game = free.pop(rng.randrange(len(free))) if free else rng.randint(1, latest)
            floating.setdefault(game, []).append(m.kind)
        else:
            fixed.setdefault(m.game, []).append(m.kind)
    return fixed, floating
