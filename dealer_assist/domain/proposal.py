"""The correction the house rules propose for a flagged game, for the supervisor's review.

The system never decides alone: it proposes, a supervisor decides (accept, correct, void, or
void the shoe). `propose(shoe, game)` gives one proposal per flag that needs a decision, most
severe first; the first is the one to offer by default. What each flag proposes is its
entry in `domain/flags.py`'s table; this module tells it with the game's facts.
"""

from __future__ import annotations

from typing import NamedTuple

from dealer_assist.domain.flags import FLAGS, NEEDS_DECISION, SHOE_VOID, VOID, Flag
from dealer_assist.domain.game import UNREADABLE, Game
from dealer_assist.domain.shoe import Shoe


class Proposal(NamedTuple):
    action: str  # accept, correct, void, void_shoe
    text: str
    flag: str


def _one(game: Game, flag: Flag) -> Proposal:
    """The correction the flag's entry in `FLAGS` gives, told with this game's facts."""
    rule = FLAGS[flag.code]
    complete = game.complete and game.known
    fix = (rule.once_complete if complete else None) or rule.correction
    if fix is None:  # an entry with no correction: the flag's own words
        return Proposal("void" if flag.severity == VOID else "accept", flag.detail, flag.code)
    facts = {
        "n": game.number,
        "expect": game.expect,
        "aside": ", ".join(game.set_aside) or "the surplus card",
        "unreadable": ", ".join(p for p, c in game.cards if c == UNREADABLE) or "that position",
    }
    return Proposal(fix.action, fix.text.format(**facts), flag.code)


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
            out.append(_one(game, flag))
    return out
