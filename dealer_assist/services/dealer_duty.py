"""The dealer on duty: who deals each game, and who is at the table now.

A dealer signs in on the dealer's page and is relieved when the next dealer signs in or at a
sign-out. Every `bets_closed` the table logs while a dealer is signed in carries that dealer
(`"dealer": "D-12"`, a field the trace contract lets the product add): game n of a shoe starts
at its nth `bets_closed`, so the game's dealer is written in the very event that starts it.
`dealers` keeps, per shoe of the table machine, the dealer of each game as its `bets_closed`
came (replayed on start; in the snapshots). After a restart the dealer of the last game is
taken to be at the table until relieved, since the start of that dealer's stint's first game
(docs/service.md).

The live table owns one `DealerDuty` and calls it under its lock (it is not thread-safe by
itself). What a client sends is checked here (`dealer_name`, `stamp`, `sign_out`): a refusal is
`Refused`, and nothing is logged.
"""

from __future__ import annotations

from typing import Any

from dealer_assist.domain.excerpt import shown
from dealer_assist.domain.phases import NO_SHOE
from dealer_assist.domain.table import TableMachine
from dealer_assist.services.refusals import Refused, plain

#: The longest dealer's name (an account name), as sign-ins and `bets_closed` take it.
MAX_NAME = 64


def dealer_name(text: Any) -> str:
    """The name a dealer signs in with, its spaces tidied; Refused if empty or too long."""
    name = " ".join(str(text).split())
    if not name:
        raise Refused("a dealer signs in with a name")
    if len(name) > MAX_NAME:
        raise Refused(f"a dealer's name has at most {MAX_NAME} characters")
    return name


class DealerDuty:
    """The dealers of a table machine's games and the dealer at the table now."""

    def __init__(self) -> None:
        #: Per shoe of the machine (same index), the dealer of each game, by its bets_closed.
        self.dealers: list[list[str | None]] = []
        #: The dealer at the table now (None: no one), and since when (a trace timestamp).
        self.dealer: str | None = None
        self.since: str | None = None

    # ---- the log -------------------------------------------------------------------------
    def stamp(self, event: dict[str, Any]) -> None:
        """A `bets_closed` about to be logged names the dealer at the table, if any and if it
        names none itself; Refused if the dealer it names is no dealer's name."""
        if "dealer" in event and not (isinstance(event["dealer"], str)
                                      and 0 < len(event["dealer"].strip()) <= MAX_NAME):
            raise Refused(f"bets_closed refused: field 'dealer' must be a dealer's name "
                          f"(1 to {MAX_NAME} characters), got {shown(event['dealer'])}")
        if "dealer" not in event and self.dealer:
            event["dealer"] = self.dealer

    def dealt(self, machine: TableMachine, dealer: Any, ts: Any) -> None:
        """A `bets_closed` was applied to `machine` (a game started): note its dealer; the
        log's dealer is the table's now (a replayed log, a trace fed in with its dealers)."""
        shoes = machine.shoes
        if not shoes or machine.phase == NO_SHOE:  # no shoe took it: no game starts
            return
        self.dealers.extend([] for _ in range(len(shoes) - len(self.dealers)))
        name = dealer if isinstance(dealer, str) and dealer.strip() else None
        self.dealers[len(shoes) - 1].append(name)
        if name != self.dealer:
            self.dealer, self.since = name, (ts if name else None)

    def resume(self, machine: TableMachine) -> None:
        """After a restart: the dealer at the table has been there since the start of the
        first game of their stint (the run of last games they dealt)."""
        start = None
        if self.dealer is not None:
            for shoe, dealers in reversed(list(zip(machine.shoes, self.dealers, strict=False))):
                for game, dealer in reversed(list(zip(shoe.games, dealers, strict=False))):
                    if dealer != self.dealer:
                        self.since = start
                        return
                    start = game.started_ts
        self.since = start

    # ---- people --------------------------------------------------------------------------
    def sign_in(self, name: str, now: str) -> str | None:
        """`name` takes the table at `now`; the dealer relieved (None: no one, or the same)."""
        if self.dealer == name:
            return None
        relieved, self.dealer, self.since = self.dealer, name, now
        return relieved

    def sign_out(self, only: str | None = None) -> str | None:
        """The dealer at the table leaves with no one after; who it was (None: no one). With
        `only`, only that dealer does (Refused if another dealer is at the table)."""
        was = self.dealer
        if was is not None and only is not None and only != was:
            raise Refused(f"{plain(only)} is not the dealer at the table ({was} is)")
        self.dealer, self.since = None, None
        return was

    # ---- reads ---------------------------------------------------------------------------
    def on_duty(self) -> dict[str, Any]:
        return {"dealer": self.dealer, "since": self.since}

    def games(self, machine: TableMachine) -> list[dict[str, Any]]:
        """Every game of `machine`, oldest first, with its dealer (None: no dealer signed in):
        shoe, game, dealer, start, end, flag codes, review (charts.data's rows)."""
        return [{"shoe": shoe.shoe_id, "game": game.number, "dealer": dealer,
                 "start": game.started_ts, "end": game.ended_ts,
                 "flags": [f.code for f in game.flags], "review": game.review}
                for shoe, dealers in zip(machine.shoes, self.dealers, strict=False)
                for game, dealer in zip(shoe.games, dealers, strict=False)]

    # ---- snapshots -----------------------------------------------------------------------
    def captured(self) -> tuple[list[list[str | None]], str | None]:
        """Copies for a snapshot: the dealers per shoe and the dealer at the table."""
        return [list(d) for d in self.dealers], self.dealer

    def restore(self, dealers: list[list[str | None]], dealer: str | None) -> None:
        """The state a snapshot kept (`resume` then says since when)."""
        self.dealers, self.dealer, self.since = [list(d) for d in dealers], dealer, None
