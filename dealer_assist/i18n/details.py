"""The server's texts that carry facts: flags' details, the corrections the rules propose,
the links' reasons and problems. The log keeps them in English (it is the trace's contract:
what is recorded never changes); a page translates them when it shows them (`i18n.say`), by
the pattern of their id: "9H belongs at P1 but lies in banker1" by "{0} belongs at {1} but lies
in {2}", its fillings translated too where they are ids themselves (a position, a camera zone,
a nested detail).

`DETAILS` are the details `domain/table.py` writes (its `_flag(...)` calls), one id per
wording; `PROPOSALS` the texts `domain/proposal.py` adds; `correction_ids()` the corrections of
`domain/flags.py`, their named fillings (`{n}`, `{expect}`...) as `{0}`, `{1}` in the order they
come; `FILLINGS` the words that fill them; `LINKS` the links' reasons and problem kinds.
`tests/i18n/test_details.py` runs a trace with every flag through the table and checks that
every detail and proposal it gives is translated, so a new wording cannot be forgotten.
"""

from __future__ import annotations

import re

#: Flag details, as domain/table.py words them (the wordings with a fixed word get their own
#: id: "the burn needs a", "during the new-shoe burn").
DETAILS: tuple[str, ...] = (
    "game {0} started after {1} burn card(s); the burn needs {2}",
    "game {0} started after {1} burn card(s); the burn needs a",
    "game {0} started after {1} burn card(s); the burn needs an unknown number of",
    "the burn's face-up card could not be read",
    "the burn needs {0} cards; more came out",
    "no card was burned between game {0} and game {1}",
    "{0} came out after game {1} was complete; set aside",
    "game {0} received cards before its bets closed",
    "the shoe ended while game {0} still needed {1}",
    "bets closed for the next game while game {0} still needed {1}",
    "{0} ({1}) came out together with the card before it",
    "{0} belongs at {1} but lies in {2}",
    "the camera saw {0} in {1}; the shoe dealt {2}",
    "the camera saw {0} in {1}; the shoe dealt no card there",
    "{0} ({1}) lay face up before bets closed",
    "{0} ({1}) was opened and left the camera's view",
    "{0} ({1}) left the camera's view unopened",
    "game {0} is the last game of the shoe",
    "game {0} dealt after the last game ({1})",
    "game {0} dealt after the yellow card ended the shoe",
    "game {0} dealt after the last game ({1}): the blue card came out during game {2}",
    "game {0} dealt after the last game ({1}): the yellow card came out during game {2}",
    "game {0} dealt after the last game ({1}): the blue card came out between games",
    "game {0} dealt after the last game ({1}): the yellow card came out between games",
    "{0} is copy {1} from a shoe of {2} deck(s)",
    "the card at {0} could not be read",
    "{0} frame(s) from the shoe lost during game {1}",
    "{0} frame(s) from the shoe lost during the new-shoe burn",
    "an unknown number of frame(s) from the shoe lost during game {0}",
    "an unknown number of frame(s) from the shoe lost during the new-shoe burn",
    "game {0} was interrupted ({1}) and did not continue",
)

#: What domain/proposal.py writes around the corrections.
PROPOSALS: tuple[str, ...] = ("void the shoe from game {0}: {1}", "the shoe is void")

#: Words that fill the texts above: the positions of a game, the camera's zones, where an
#: extra card lies, the proposals' stand-ins, an interruption's reason.
FILLINGS: tuple[str, ...] = (
    "P1", "P2", "P3", "B1", "B2", "B3",
    "player1", "player2", "player3", "banker1", "banker2", "banker3",
    "burn", "set_aside", "the surplus card", "that position",
    # why the system interrupted a game (domain/events.py INTERRUPT_REASONS)
    "restart", "shoe_link_lost", "shoe_replaced",
)

#: The links' reasons (devices/, hardware/shoe/link.py) and the kinds of frames a link drops
#: (hardware/shoe/protocol.py PROBLEM_KINDS), as the console lists them.
LINKS: tuple[str, ...] = (
    "frames arriving", "waiting for the first frame", "the camera feed stopped on an error",
    "the camera source ended", "the built-in shoe emulator", "port failed: {0}",
    "cannot open {0}: {1}", "no frame and no heartbeat for {0} s",
    "demo: an emulated camera", "demo: the overhead camera is unplugged",
    "checksum", "malformed", "too_long", "non_ascii", "unknown_type", "gap", "duplicate",
    "noise",
)

#: What the console's, dealer's and regulator's pages say back (web/console.py,
#: web/regulator.py) and the table's refusals they show (services/live_table.py, records).
PAGES: tuple[str, ...] = (
    "Decision recorded for game {0}.", "Recorded: the cards are open.", "Not recorded: {0}",
    "No game {0} in shoe {1}.", "game {0} is not a game number",
    "hours {0}: a whole number of hours from 1 to 48", "side {0}: all, player or banker",
    "Only a dealer signs in at the table, as themself: log in with the dealer's account.",
    "{0}: {1} is given but {2} is empty", "a decision needs a reason",
    "a reason has at most {0} characters", "a decision needs the supervisor who made it",
    "decision {0}: one of accept, correct, void, void_shoe", "correction: {0}",
    "shoe {0} has no game {1}", "the current shoe has no game {0}",
    "a dealer signs in with a name", "a dealer's name has at most {0} characters",
    "{0} is not the dealer at the table ({1} is)",
    "day {0}: write it as YYYY-MM-DD, e.g. 2026-11-29", "day {0} is out of range",
    "month {0}: write it as YYYY-MM, e.g. 2026-11", "month {0} is out of range",
    "no table {0} here; tables: {1}", "export: {0}", "exports cannot be signed here: {0}",
    "the log has no event from {0} to {1}",
    "the time range is empty: {0} is not before {1}",
    "this service has no signing key: set DEALER_ASSIST_SIGNING_KEY",
    "{0} is missing or not valid",
)

#: The values the regulator's games table shows as they are recorded: a game's status, its
#: review, its shoe's variant (domain/game.py, domain/rules.py VARIANTS), 7 Up's own bet.
STATES: tuple[str, ...] = ("incomplete", "none", "pending", "resolved", "standard", "super6",
                           "7up", "super7")

_NAMED = re.compile(r"\{(\w+)\}")


def positional(text: str) -> str:
    """A text with named fillings as an id: `{n}`, `{aside}` -> `{0}`, `{1}` in order."""
    names: list[str] = []

    def number(match: re.Match[str]) -> str:
        if match.group(1) not in names:
            names.append(match.group(1))
        return "{" + str(names.index(match.group(1))) + "}"

    return _NAMED.sub(number, text)


def correction_ids() -> list[str]:
    """The corrections of domain/flags.py as ids (imported here: a tool's and a test's)."""
    from dealer_assist.domain.flags import FLAGS

    fixes = [fix for rule in FLAGS.values() for fix in (rule.correction, rule.once_complete)
             if fix is not None]
    return list(dict.fromkeys(positional(fix.text) for fix in fixes))


def ids() -> list[str]:
    """Every id of this module's texts."""
    return list(dict.fromkeys([*DETAILS, *PROPOSALS, *correction_ids(), *FILLINGS, *LINKS,
                               *PAGES, *STATES]))
