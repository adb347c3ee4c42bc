"""The mistakes a deal can be asked for, the flags each must raise, and the game it is made on.

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

`MistakePlan` says, game by game as the deal reaches it, which mistakes the dealer makes there
(`GameMistakes`); the deal (devices/deal/dealing.py) moves a random one on, or leaves it out,
where the game cannot take it, and a mistake asked for on that very game is a `DealError`.
"""

from __future__ import annotations

import random
from collections.abc import Iterable
from dataclasses import dataclass, field

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
#: The mistakes made once in a shoe, not on a game of it.
_ONCE = ("short_burn", "deal_after_last_game")


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


def parse_mistake(text: str) -> Mistake:
    """`unneeded_draw` or `unneeded_draw:12` (on game 12) -> Mistake."""
    kind, _, game = text.partition(":")
    if game and not game.isdigit():
        raise DealError(f"bad mistake {text!r}: write KIND or KIND:GAME, e.g. missed_draw:7")
    return Mistake(kind.strip(), int(game) if game else None)


def as_mistakes(mistakes: Iterable[Mistake | str]) -> list[Mistake]:
    """Mistakes as given or as text (`parse_mistake`); DealError if a once-a-shoe one repeats."""
    out = [m if isinstance(m, Mistake) else parse_mistake(m) for m in mistakes]
    kinds = [m.kind for m in out]
    for k in _ONCE:
        if kinds.count(k) > 1:
            raise DealError(f"mistake {k} can happen only once in a shoe")
    return out


@dataclass(slots=True)
class GameMistakes:
    """The mistakes the dealer makes on one game, as the deal finds out whether it can."""

    number: int
    #: The game's mistakes (the very list its `DealtGame.mistakes` is).
    kinds: list[str]
    #: Those on a game chosen at random: they may move on to the next game, or be left out.
    floated: list[str]
    _later: dict[int, list[str]] = field(repr=False)
    #: The game's first card comes out face up before its bets close (`exposed_card`).
    exposed: bool = False

    def move_on(self, kind: str, why: str) -> None:
        """This game cannot take `kind`: a random one moves on to the next game; one asked for
        on this game is a DealError saying `why`."""
        self.leave_out(kind, why)
        self._later.setdefault(self.number + 1, []).append(kind)

    def leave_out(self, kind: str, why: str) -> None:
        """No game is left for `kind`: a random one is not made; one asked for on this game is
        a DealError saying `why`."""
        if kind not in self.floated:
            raise DealError(why)
        self.kinds.remove(kind)


class MistakePlan:
    """The mistakes of one deal: on which game each one is made, and the shoe's own."""

    def __init__(self, wanted: list[Mistake], rng: random.Random, cut_at: int) -> None:
        kinds = [m.kind for m in wanted]
        #: The new-shoe burn stops one card short.
        self.short_burn = "short_burn" in kinds
        #: One more game is dealt after the last.
        self.after_last = "deal_after_last_game" in kinds
        self._fixed, self._floating = _plan(wanted, rng, cut_at)

    def game(self, number: int, before: list[str] | None, closed_early: bool) -> GameMistakes:
        """The mistakes on game `number`, `before` being the last game's (None: it is the
        first), `closed_early` whether its bets closed before the last game was complete."""
        floated = self._floating.pop(number, [])
        game = GameMistakes(number, self._fixed.pop(number, []) + floated, floated, self._floating)
        if "missed_draw" in game.kinds and "unneeded_draw" in game.kinds:
            game.move_on("missed_draw",
                         f"game {number}: missed_draw and unneeded_draw cannot share a game")
        game.exposed = "exposed_card" in game.kinds
        if game.exposed and (
                before is None or closed_early or {"unneeded_draw", "missed_draw"} & set(before)):
            game.move_on("exposed_card", f"exposed_card on game {number}: needs a game before "
                                         "it with no unneeded_draw or missed_draw")
            game.exposed = False
        return game

    def check_made(self, games: int | None) -> None:
        """The shoe is dealt (`games` games): DealError if a mistake found no game."""
        if self._fixed or self._floating:
            left = sorted({*self._fixed, *self._floating})
            raise DealError(f"mistakes planned on game(s) {left}: the shoe had only {games} games")


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
        if m.kind in _ONCE:
            continue
        if m.game is None:
            game = free.pop(rng.randrange(len(free))) if free else rng.randint(1, latest)
            floating.setdefault(game, []).append(m.kind)
        else:
            fixed.setdefault(m.game, []).append(m.kind)
    return fixed, floating
