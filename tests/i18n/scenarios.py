"""One trace that raises every flag code, in each of the wordings `domain/table.py` gives its
details (burn short by a number, by "a", by "an unknown number of"; a gap in a game and in the
burn; the last game by the blue or the yellow card...): one shoe per scenario, S01, S02...

The flag details and the corrections proposed for them are what the pages show a supervisor;
`tests/i18n/test_details.py` checks that each is translated, the web tests show them."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from tests.tracebuild import BURN3, Trace

#: Player 9H KD = 9, Banker TS 2C = 2: a natural, four cards, Player wins.
NAT = ("9H", "TS", "KD", "2C")
#: Player 2H 2D = 4 draws, Banker 3S 4C = 7 stands: needs Player's third card.
P_DRAWS = ("2H", "3S", "2D", "4C")

Scenario = Callable[[Trace], Trace]

SCENARIOS: dict[str, Scenario] = {
    "burn short": lambda t: t.burn("2S", "KS").game(*NAT),
    "no burn": lambda t: t.game(*NAT),
    "burn unreadable": lambda t: t.ev("shoe", "unreadable").game(*NAT),
    "burn excess": lambda t: t.burn(*BURN3, "QD").game(*NAT),
    "burn missing": lambda t: t.burn(*BURN3).game(*NAT).game("8H", "TD", "QC", "JS"),
    "unneeded draw": lambda t: t.burn(*BURN3).game(*NAT).cards("5D").game(*NAT),
    "early deal": lambda t: t.burn(*BURN3).game(*NAT).cards("5D", "6D").close()
    .cards("TS", "KD", "2C"),
    "missing draw": lambda t: t.burn(*BURN3).game(*P_DRAWS).close().cards("5S").cards(*NAT),
    "missing draw at the end": lambda t: t.burn(*BURN3).game(*P_DRAWS),
    "multi pull": lambda t: t.burn(*BURN3).close().cards("9H").cards("TS", "KD", multi=True)
    .cards("2C"),
    "wrong position": lambda t: t.burn(*BURN3).game(*NAT).seen("9H", "banker1"),
    "card mismatch": lambda t: t.burn(*BURN3).game(*NAT).seen("QH", "player1"),
    "card mismatch, empty": lambda t: t.burn(*BURN3).game(*NAT).seen("QH", "banker3"),
    "exposed": lambda t: t.burn(*BURN3).game(*NAT).cards("5D", "6D").seen("6D", "player1")
    .close().cards("TS", "KD", "2C"),
    "dropped opened": lambda t: t.burn(*BURN3).close().cards("9H", "TS").seen("9H", "player1")
    .lost("player1", opened=True, card="9H").cards("KD", "2C"),
    "out of view": lambda t: t.burn(*BURN3).close().cards("9H", "TS")
    .lost("banker1", opened=False).cards("KD", "2C"),
    "blue during": lambda t: t.burn(*BURN3).close().cards("9H", "TS").cut("blue")
    .cards("KD", "2C").game(*NAT),
    "blue between": lambda t: t.burn(*BURN3).game(*NAT).cut("blue").game(*NAT).game(*NAT),
    "yellow between": lambda t: t.burn(*BURN3).game(*NAT).cut("yellow").game(*NAT),
    "yellow during": lambda t: t.burn(*BURN3).close().cards("9H").cut("yellow")
    .cards("TS", "KD", "2C").game(*NAT),
    "cut after the last": lambda t: t.burn(*BURN3).game(*NAT).game(*NAT).game(*NAT)
    .cut("yellow"),
    "yellow after an early deal": lambda t: t.burn(*BURN3).game(*NAT).cards("5D", "6D")
    .cut("yellow"),
    "yellow in the burn": lambda t: t.burn("2S").cut("yellow").burn("KS", "KH").game(*NAT),
    "foreign card": lambda t: t.burn(*BURN3).game("9H", "TS", "9H", "2C"),
    "unreadable": lambda t: t.burn(*BURN3).close().cards("9H", "TS").ev("shoe", "unreadable")
    .cards("2C"),
    "data gap": lambda t: t.burn(*BURN3).close().cards("9H").ev("shoe", "gap", missing=2)
    .cards("TS", "KD", "2C"),
    "data gap, unknown, in the burn": lambda t: t.burn("2S").ev("shoe", "gap")
    .burn("KS", "KH").game(*NAT),
    **{f"interrupted: {reason}": (lambda r: lambda t: t.burn(*BURN3).close().cards("2H", "3S")
                                  .ev("system", "interrupted", reason=r))(reason)
       for reason in ("restart", "shoe_link_lost", "shoe_replaced")},
}
#: The house settings a scenario needs (the rest: the default house).
HOUSES: dict[str, dict[str, Any]] = {"burn missing": {"burn_after_each_game": True}, "foreign card": {"decks": 1}}


def shoe_of(name: str) -> str:
    """The shoe id of a scenario in `every_flag_trace`."""
    return f"S{list(SCENARIOS).index(name) + 1:02d}"


def every_flag_trace() -> Trace:
    """Every scenario, one shoe each, in one trace (a table that dealt them one after another)."""
    trace = Trace()
    for name, scenario in SCENARIOS.items():
        scenario(trace.new_shoe(shoe_of(name), **HOUSES.get(name, {}))).end()
    return trace
