"""The flags of table-trace.md in one table: each code's severity, rule and proposed correction.

Everything about a flag is in two places: its entry in `FLAGS` below, and the handler of the
table machine (`domain/table.py`, `Flag.of(code, ...)`) that raises it. The entry says how
severe the flag is (the spec's contract), the rule the house gives for it (shown to the
supervisor with the flag), and the correction `domain/proposal.py` offers for a game that
carries it. Flags of severity `info` need no decision and `shoe_void` ones are proposed for
the whole shoe, so their entries propose no correction of their own. A flag the system's own
trouble raises (INTERRUPTED) is `charged=False`: it goes to a supervisor like any other, but
counts in no dealer's figures (`charged`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import NamedTuple

INFO, REVIEW, VOID, SHOE_VOID = "info", "review", "void", "shoe_void"

#: Severities that put a game in the supervisor's review queue until decided.
NEEDS_DECISION = frozenset({REVIEW, VOID})


class Correction(NamedTuple):
    """What the rules propose for a flagged game: the supervisor's action and why.

    `text` may name facts of the game: `{n}` its number, `{expect}` the position it waits
    for, `{aside}` the cards set aside after it, `{unreadable}` where its unreadable cards lie.
    """

    action: str  # accept, correct, void
    text: str


@dataclass(frozen=True)
class FlagRule:
    """One flag code: how severe it is, what the house rules say, what to propose."""

    severity: str
    rule: str
    correction: Correction | None = None
    #: Proposed instead of `correction` once the game's hand is complete and every card known.
    once_complete: Correction | None = None
    #: Whether it counts in the figures of the dealer of its game: False for what the system
    #: itself caused (table-trace.md: INTERRUPTED counts in no dealer's figures).
    charged: bool = True


_PROCEDURAL = Correction("accept", "a procedural error: it changes no result")

FLAGS: dict[str, FlagRule] = {
    "BURN_SHORT": FlagRule(
        SHOE_VOID, "Dealing before the new-shoe burn is complete voids the shoe: replace it."),
    "BURN_EXCESS": FlagRule(
        REVIEW, "Burning more than required is a procedural error; it voids nothing.", _PROCEDURAL),
    "BURN_MISSING": FlagRule(
        REVIEW, "The house burns one card after every game: the burn was missed.", _PROCEDURAL),
    "UNNEEDED_DRAW": FlagRule(
        REVIEW, "A card drawn after the game was complete does not change its result: set it "
        "aside as the next game's burn; a second one becomes Player's first card of the next game.",
        Correction("accept", "the result of game {n} stands; {aside} is set aside as the next "
                   "game's burn")),
    "EARLY_DEAL": FlagRule(
        REVIEW, "Cards dealt before bets closed take the game's positions in order "
        "(under supervision).",
        Correction("accept", "the cards dealt before bets closed keep their positions in deal "
                   "order")),
    "MISSING_DRAW": FlagRule(
        REVIEW, "A draw the rules require was skipped: correct the hand to what the rules give.",
        Correction("correct", "enter the card the rules give to {expect} from the table, or "
                   "void game {n}"),
        once_complete=Correction("accept", "the card drawn after the close completed game {n} "
                                 "by the rules: the result stands as read")),
    "MULTI_PULL": FlagRule(
        INFO, "Cards pulled out together take their positions in order; the result stands."),
    "WRONG_POSITION": FlagRule(
        REVIEW, "The nth card belongs to the position the rules give it, wherever it lies.",
        Correction("accept", "each card counts at the position the rules give it, wherever it "
                   "lies")),
    "CARD_MISMATCH": FlagRule(
        VOID, "The camera saw a card the shoe did not deal to this game: the game is void "
        "unless a supervisor rules otherwise.",
        Correction("void", "void game {n}, or correct it to the cards on the table")),
    "EXPOSED_DURING_BETTING": FlagRule(
        VOID, "A game card exposed while bets were open voids the game; "
        "management may also cancel the shoe.",
        Correction("void", "void game {n}; management may also cancel the shoe")),
    "DROPPED_OPENED": FlagRule(
        VOID, "A card opened and then dropped voids the game; deal it again with new cards.",
        Correction("void", "void game {n} and deal it again with new cards")),
    "CARD_OUT_OF_VIEW": FlagRule(
        INFO, "An unopened card that was dropped may be picked up and used."),
    "LAST_GAME": FlagRule(INFO, "This is the last game of the shoe."),
    "DEAL_AFTER_LAST_GAME": FlagRule(
        VOID, "Any game dealt after the last game is invalid and void.",
        Correction("void", "void game {n}: it was dealt after the last game")),
    "FOREIGN_CARD": FlagRule(
        VOID, "The shoe produced more copies of a card than it holds: the game is void.",
        Correction("void", "void game {n} and inspect the shoe")),
    "UNREADABLE_CARD": FlagRule(
        REVIEW, "The shoe could not read a card: enter it from the table.",
        Correction("correct", "enter the card at {unreadable} from the table")),
    "DATA_GAP": FlagRule(
        REVIEW, "Frames from the shoe were lost: cards may be missing; check the table.",
        Correction("correct", "check the cards on the table against the shoe's reading; "
                   "correct any card the link lost, or accept")),
    "INTERRUPTED": FlagRule(
        REVIEW, "A game the system interrupted (a restart, a lost shoe link, a replaced shoe) "
        "that did not continue is no dealer's mistake: complete it from the table, or void it.",
        Correction("correct", "enter the cards of game {n} from the table, or void game {n}"),
        charged=False),
}

#: Flag codes the system's own troubles raise: never counted in a dealer's figures.
UNCHARGED = frozenset(code for code, rule in FLAGS.items() if not rule.charged)


def charged(codes: Iterable[str]) -> list[str]:
    """The flag codes of a game that count against its dealer (UNCHARGED ones left out)."""
    return [code for code in codes if code not in UNCHARGED]


class Flag(NamedTuple):
    """A flag raised on a game or a shoe: its code, the code's severity, and what was seen."""

    code: str
    severity: str
    detail: str

    @classmethod
    def of(cls, code: str, detail: str) -> Flag:
        return cls(code, FLAGS[code].severity, detail)

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "detail": self.detail}
