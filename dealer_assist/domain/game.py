"""One game of a shoe as the table machine builds it: cards by position, flags, rulings.

Cards are kept by position in the order the rules give. An unreadable card is `??` with an
unknown value; while a value the rules need is unknown, the game keeps taking cards in deal
order (P3, then B3) without claiming that a draw was missed.
"""

from __future__ import annotations

from collections.abc import Iterable
from itertools import product

from dealer_assist.domain.cards import CARD_VALUE
from dealer_assist.domain.flags import NEEDS_DECISION, VOID, Flag
from dealer_assist.domain.rules import POSITIONS, SEVEN_UP_FIXED_VALUE, next_position

UNREADABLE = "??"
#: The one (position, code) pair of each card at each position: a game's `cards` hold these,
#: not a pair of their own per card (an audit keeps every card of every game).
_PLACED: dict[str, dict[str, tuple[str, str]]] = {
    pos: {code: (pos, code) for code in (*CARD_VALUE, UNREADABLE)} for pos in POSITIONS}
#: What a game has revealed until a card is seen face up: one empty set for every game
#: (`Game.reveal` makes a new set, never changes this one), as `flag_keys` waits as None.
_NONE_REVEALED: frozenset[str] = frozenset()
#: `next_position` while a side has fewer than two values (Player's fixed 7 of `7up`
#: counted), by `8 * n_player + n_banker`: the deal alternates, Player first. Not there once
#: both sides have two: the third-card rules decide.
_OPENING: dict[int, str] = {
    8 * n_p + n_b: f"P{n_p + 1}" if n_p <= n_b else f"B{n_b + 1}"
    for n_p in range(8) for n_b in range(8) if n_p < 2 or n_b < 2}
#: Unknown values explored when deciding the next position (more unknowns: assume the card).
_MAX_UNKNOWN = 3


def expected_position(player: list[int | None], banker: list[int | None]) -> tuple[str | None, bool]:
    """The next position and whether the rules surely want it (False: it depends on an unknown)."""
    unknown = [i for i, v in enumerate(player + banker) if v is None]
    if not unknown:
        return next_position(player, banker), True  # type: ignore[arg-type]
    if len(unknown) > _MAX_UNKNOWN:
        n = len(player) + len(banker)
        return (("P1", "B1", "P2", "B2", "P3", "B3")[n] if n < 6 else None), False
    outcomes = set()
    n_p = len(player)
    for values in product(range(10), repeat=len(unknown)):
        filled: list[int] = [0 if v is None else v for v in player + banker]
        for i, v in zip(unknown, values, strict=True):
            filled[i] = v
        outcomes.add(next_position(filled[:n_p], filled[n_p:]))
    if len(outcomes) == 1:
        return outcomes.pop(), True
    positions = sorted(p for p in outcomes if p is not None)
    return positions[0], False


class Game:
    """A game's record. The table machine is the only writer."""

    __slots__ = (
        "number", "seven_up", "cards", "player", "banker", "player_values", "banker_values", "expect", "expect_sure",
        "bets_closed", "flags", "set_aside", "last_game", "ruling", "decided_upto", "revealed",
        "between_cards", "voided_by_shoe", "unknowns", "super7_offered", "started_ts", "ended_ts", "flag_keys",
    )

    def __init__(self, number: int, seven_up: bool, super7_offered: bool = False) -> None:
        self.number = number
        self.seven_up = seven_up
        self.super7_offered = super7_offered
        #: (position, card code) in the order the cards came out of the shoe.
        self.cards: list[tuple[str, str]] = []
        #: Player's and Banker's cards in position order (Player's fixed 7 of `7up` not included).
        self.player: list[str] = []
        self.banker: list[str] = []
        self.player_values: list[int | None] = [SEVEN_UP_FIXED_VALUE] if seven_up else []
        self.banker_values: list[int | None] = []
        self.expect: str | None = "B1" if seven_up else "P1"
        self.expect_sure = True
        self.bets_closed = False
        self.flags: list[Flag] = []
        #: (code, detail) of the flags raised `once` (None until the first).
        self.flag_keys: set[tuple[str, str]] | None = None
        #: Surplus cards set aside after this game.
        self.set_aside: list[str] = []
        self.last_game = False
        #: The latest supervisor ruling: None, "accept", "void" or "correct".
        self.ruling: str | None = None
        #: Flags before this index are covered by a decision.
        self.decided_upto = 0
        #: Positions seen face up (by the camera, or a REVEAL): see `reveal`.
        self.revealed: frozenset[str] = _NONE_REVEALED
        #: Cards that came out after this game was complete, before the next bets closed.
        self.between_cards = 0
        self.voided_by_shoe = False
        #: Unreadable cards in the hand.
        self.unknowns = 0
        self.started_ts: str | None = None
        self.ended_ts: str | None = None

    # -- cards ------------------------------------------------------------------------------
    @property
    def complete(self) -> bool:
        return self.expect is None

    def place(self, code: str) -> str:
        """Put the next card from the shoe at the position the rules give; return the position."""
        # Every card of every audit comes through here: kept flat on purpose.
        pos = self.expect
        assert pos is not None, "place() on a complete game"
        self.cards.append(_PLACED[pos].get(code) or (pos, code))
        pv, bv = self.player_values, self.banker_values
        if pos[0] == "P":
            self.player.append(code)
            pv.append(CARD_VALUE.get(code))
        else:
            self.banker.append(code)
            bv.append(CARD_VALUE.get(code))
        if code == UNREADABLE:
            self.unknowns += 1
        if not self.unknowns:
            self.expect = (_OPENING.get(8 * len(pv) + len(bv))
                           or next_position(pv, bv))  # type: ignore[arg-type]
        else:
            self.expect, self.expect_sure = expected_position(pv, bv)
        return pos

    def replace_cards(self, player: tuple[str, ...], banker: tuple[str, ...]) -> None:
        """A supervisor's correction: the hand becomes these cards (Player's fixed 7 implied)."""
        order = ("P1", "B1", "P2", "B2", "P3", "B3")
        by_pos = {f"P{i + (2 if self.seven_up else 1)}": c for i, c in enumerate(player)}
        by_pos.update({f"B{i + 1}": c for i, c in enumerate(banker)})
        self.cards = [(p, by_pos[p]) for p in order if p in by_pos]
        self.player, self.banker = list(player), list(banker)
        self.unknowns = 0
        fixed: list[int | None] = [SEVEN_UP_FIXED_VALUE] if self.seven_up else []
        self.player_values = fixed + [CARD_VALUE[c] for c in player]
        self.banker_values = [CARD_VALUE[c] for c in banker]
        self.expect, self.expect_sure = expected_position(self.player_values, self.banker_values)
        self.reveal(by_pos)

    def reveal(self, positions: Iterable[str]) -> None:
        """These positions are now seen face up."""
        self.revealed = self.revealed.union(positions)

    def position_of(self, code: str, seen_at: str | None = None) -> str | None:
        """Where the game holds `code`: `seen_at` when it holds it there (a shoe of many decks
        can deal one code twice to a game), else its first position; None if nowhere."""
        if seen_at is not None and (seen_at, code) in self.cards:
            return seen_at
        for pos, c in self.cards:
            if c == code:
                return pos
        return None

    # -- flags and status -------------------------------------------------------------------
    def flag(self, flag: Flag, once: bool = False) -> bool:
        """Add a flag; with `once`, not if one of the same code (and detail key) is there."""
        if once:
            key = (flag.code, flag.detail)
            if self.flag_keys is None:
                self.flag_keys = set()
            elif key in self.flag_keys:
                return False
            self.flag_keys.add(key)
        self.flags.append(flag)
        return True

    def has_flag(self, code: str) -> bool:
        return any(f.code == code for f in self.flags)

    @property
    def void(self) -> bool:
        if not self.flags and self.ruling is None and not self.voided_by_shoe:
            return False
        if self.voided_by_shoe or self.ruling == "void":
            return True
        return any(f.severity == VOID for f in self.flags[self.decided_upto:])

    @property
    def status(self) -> str:
        # `void` read only where a flag, a ruling or the shoe can make it so (most games)
        if (self.flags or self.ruling is not None or self.voided_by_shoe) and self.void:
            return "void"
        return "complete" if self.expect is None and not self.unknowns else "incomplete"

    @property
    def known(self) -> bool:
        return not self.unknowns

    @property
    def review(self) -> str:
        if not self.flags:
            return "none"
        if not any(f.severity in NEEDS_DECISION for f in self.flags):
            return "none"
        pending = any(f.severity in NEEDS_DECISION for f in self.flags[self.decided_upto:])
        return "pending" if pending else "resolved"
