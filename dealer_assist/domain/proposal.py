"""The correction the house rules propose for a flagged game, for the supervisor's review.

The system never decides alone: it proposes, a supervisor decides (accept, correct, void, or
void the shoe). `propose(shoe, game)` gives one proposal per flag that needs a decision, most
severe first; the first is the one to offer by default.
"""

from __future__ import annotations

from typing import NamedTuple

from dealer_assist.domain.flags import NEEDS_DECISION, SHOE_VOID, VOID, Flag
from dealer_assist.domain.game import UNREADABLE, Game
from dealer_assist.domain.shoe import Shoe


class Proposal(NamedTuple):
    action: str  # accept, correct, void, void_shoe
    text: str
    flag: str


def _one(shoe: Shoe, game: Game, flag: Flag) -> Proposal:
    code, n = flag.code, game.number
    if code == "MISSING_DRAW":
        if game.complete and game.known:
            return Proposal("accept", f"the card drawn after the close completed game {n} by the "
                            "rules: the result stands as read", code)
        return Proposal("correct", f"enter the card the rules give to {game.expect} from the table, "
                        f"or void game {n}", code)
    if code == "UNNEEDED_DRAW":
        aside = ", ".join(game.set_aside) or "the surplus card"
        return Proposal("accept", f"the result of game {n} stands; {aside} is set aside as the "
                        "next game's burn", code)
    if code == "EARLY_DEAL":
        return Proposal("accept", "the cards dealt before bets closed keep their positions in "
                        "deal order", code)
    if code == "WRONG_POSITION":
        return Proposal("accept", "each card counts at the position the rules give it, wherever "
                        "it lies", code)
    if code == "UNREADABLE_CARD":
        where = [p for p, c in game.cards if c == UNREADABLE]
        return Proposal("correct", f"enter the card at {', '.join(where) or 'that position'} from "
                        "the table", code)
    if code == "DATA_GAP":
        return Proposal("correct", "check the cards on the table against the shoe's reading; "
                        "correct any card the link lost, or accept", code)
    if code in ("BURN_MISSING", "BURN_EXCESS"):
        return Proposal("accept", "a procedural error: it changes no result", code)
    if code == "EXPOSED_DURING_BETTING":
        return Proposal("void", f"void game {n}; management may also cancel the shoe", code)
    if code == "DROPPED_OPENED":
        return Proposal("void", f"void game {n} and deal it again with new cards", code)
    if code == "CARD_MISMATCH":
        return Proposal("void", f"void game {n}, or correct it to the cards on the table", code)
    if code == "DEAL_AFTER_LAST_GAME":
        return Proposal("void", f"void game {n}: it was dealt after the last game", code)
    if code == "FOREIGN_CARD":
        return Proposal("void", f"void game {n} and inspect the shoe", code)
    return Proposal("void" if flag.severity == VOID else "accept", flag.detail, code)


def propose(shoe: Shoe, game: Game) -> list[Proposal]:
    """Proposals for the game's flags that wait for a decision (void ones first)."""
    if shoe.void_from is not None and game.number >= shoe.void_from:
        shoe_flags = [f for f in shoe.flags if f.severity == SHOE_VOID]
        why = shoe_flags[0].detail if shoe_flags else "the shoe is void"
        return [Proposal("void_shoe", f"void the shoe from game {shoe.void_from}: {why}",
                         shoe_flags[0].code if shoe_flags else "")]
    pending = [f for f in game.flags[game.decided_upto:] if f.severity in NEEDS_DECISION]
    pending.sort(key=lambda f: f.severity != VOID)
    seen: set[str] = set()
    out = []
    for flag in pending:
        if flag.code not in seen:
            seen.add(flag.code)
            out.append(_one(shoe, game, flag))
    return out
