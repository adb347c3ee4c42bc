"""Flag codes of table-trace.md with their severities, and the flag record."""

from __future__ import annotations

from typing import NamedTuple

INFO, REVIEW, VOID, SHOE_VOID = "info", "review", "void", "shoe_void"

SEVERITY: dict[str, str] = {
    "BURN_SHORT": SHOE_VOID,
    "BURN_EXCESS": REVIEW,
    "BURN_MISSING": REVIEW,
    "UNNEEDED_DRAW": REVIEW,
    "EARLY_DEAL": REVIEW,
    "MISSING_DRAW": REVIEW,
    "MULTI_PULL": INFO,
    "WRONG_POSITION": REVIEW,
    "CARD_MISMATCH": VOID,
    "EXPOSED_DURING_BETTING": VOID,
    "DROPPED_OPENED": VOID,
    "CARD_OUT_OF_VIEW": INFO,
    "LAST_GAME": INFO,
    "DEAL_AFTER_LAST_GAME": VOID,
    "FOREIGN_CARD": VOID,
    "UNREADABLE_CARD": REVIEW,
    "DATA_GAP": REVIEW,
}

#: What the house rules give for each flag: shown to the supervisor with the flag.
RULE: dict[str, str] = {
    "BURN_SHORT": "Dealing before the new-shoe burn is complete voids the shoe: replace it.",
    "BURN_EXCESS": "Burning more than required is a procedural error; it voids nothing.",
    "BURN_MISSING": "The house burns one card after every game: the burn was missed.",
    "UNNEEDED_DRAW": "A card drawn after the game was complete does not change its result: "
    "set it aside as the next game's burn; a second one becomes Player's first card of the next game.",
    "EARLY_DEAL": "Cards dealt before bets closed take the game's positions in order (under supervision).",
    "MISSING_DRAW": "A draw the rules require was skipped: correct the hand to what the rules give.",
    "MULTI_PULL": "Cards pulled out together take their positions in order; the result stands.",
    "WRONG_POSITION": "The nth card belongs to the position the rules give it, wherever it lies.",
    "CARD_MISMATCH": "The camera saw a card the shoe did not deal to this game: the game is void "
    "unless a supervisor rules otherwise.",
    "EXPOSED_DURING_BETTING": "A game card exposed while bets were open voids the game; "
    "management may also cancel the shoe.",
    "DROPPED_OPENED": "A card opened and then dropped voids the game; deal it again with new cards.",
    "CARD_OUT_OF_VIEW": "An unopened card that was dropped may be picked up and used.",
    "LAST_GAME": "This is the last game of the shoe.",
    "DEAL_AFTER_LAST_GAME": "Any game dealt after the last game is invalid and void.",
    "FOREIGN_CARD": "The shoe produced more copies of a card than it holds: the game is void.",
    "UNREADABLE_CARD": "The shoe could not read a card: enter it from the table.",
    "DATA_GAP": "Frames from the shoe were lost: cards may be missing; check the table.",
}

#: Severities that put a game in the supervisor's review queue until decided.
NEEDS_DECISION = frozenset({REVIEW, VOID})


class Flag(NamedTuple):
    code: str
    severity: str
    detail: str

    @classmethod
    def of(cls, code: str, detail: str) -> Flag:
        return cls(code, SEVERITY[code], detail)

    def as_dict(self) -> dict[str, str]:
        return {"code": self.code, "severity": self.severity, "detail": self.detail}
