"""The table machine: trace events in, the table's state and what happened out.

Theory of operation. A table is in one of four phases:

    NO_SHOE  --new_shoe-->  BURN  --bets_closed-->  DEALING  --last card of the hand-->  BETWEEN
                                                       ^                                    |
                                                       +------------ bets_closed -----------+
    any phase --end_shoe / new_shoe--> NO_SHOE (a new_shoe ends the open shoe first)

Cards in BURN are the new-shoe burn; in DEALING they take the game's positions in the order
the rules give (table-trace.md); in BETWEEN they are the burn after the game (where the house
burns), then surplus: the first set aside, the rest dealt early into the next game. A bets_closed
that comes while the game surely needs a card is held (MISSING_DRAW) until the game is complete.
Camera sightings, cut cards, data gaps, reveals and supervisor decisions act in every phase.
The system's `interrupted` during a game notes it; if the shoe then ends or a new shoe starts
before that game got another card, the game is INTERRUPTED (naming the reason), not
MISSING_DRAW; a card of the same shoe means the game simply continued.

`TRANSITIONS` is the whole table: (phase, event type) -> handler. A pair that is not there
is an event that means nothing in that phase; it is kept in `problems` and changes nothing.
The machine is deterministic: replaying the same events rebuilds the same state.

A handler is the machine's own method (`on_*`: shoes, bets, games, and a card into a hand, the
hot path of every audit) or, where a seam has a module of its own, a function of that module
that takes the machine as a method takes `self`: the burn, cards between games and the flags
any card raises (domain/shoe_cards.py), camera sightings (domain/camera_sightings.py) and
supervisors' decisions (domain/rulings.py). They raise flags and report what happened
through the machine's `flag`, `emit` and `problem`. The phases are named in domain/phases.py.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from dealer_assist.domain import camera_sightings, rulings, shoe_cards
from dealer_assist.domain.events import (
    BetsClosed,
    CardDealt,
    CardsRevealed,
    CutCardOut,
    Event,
    FramesLost,
    Interrupted,
    Noted,
    ShoeEnded,
    ShoeLoaded,
    UnreadableDealt,
)
from dealer_assist.domain.flags import Flag
from dealer_assist.domain.game import UNREADABLE, Game
from dealer_assist.domain.phases import ANY, BETWEEN, BURN, DEALING, NO_SHOE
from dealer_assist.domain.shoe import Shoe
from dealer_assist.domain.shoe_cards import card_flags, count_over


class Happened(NamedTuple):
    """What an event did: `kind` is one of shoe_started, game_started, card_placed,
    game_completed, flag_raised, decision_applied, shoe_finished, ignored."""

    kind: str
    shoe_id: str | None
    game: int | None
    data: Any = None


_NOTHING: list[Happened] = []  # what `apply` returns when it does not record (never appended to)


class TableMachine:
    """Folds trace events into the state of one table (its shoes and their games)."""

    def __init__(self, record: bool = True) -> None:
        #: Whether `apply` reports what happened (an audit that only reads the state says no).
        self.record = record
        self._phase = NO_SHOE
        self._handlers = _BY_PHASE[NO_SHOE]
        self.shoes: list[Shoe] = []
        self.shoe: Shoe | None = None
        #: Events that meant nothing where they came (index of the event, message).
        self.problems: list[tuple[int, str]] = []
        self.events_applied = 0
        self._out: list[Happened] = []
        self._ts = ""

    @property
    def last_ts(self) -> str:
        """The time of the last event applied ("" before the first)."""
        return self._ts

    @property
    def phase(self) -> str:
        return self._phase

    @phase.setter
    def phase(self, phase: str) -> None:
        self._phase = phase
        self._handlers = _BY_PHASE[phase]

    # -- the one entry point ----------------------------------------------------------------
    def apply(self, event: Event) -> list[Happened]:
        self._out = out = [] if self.record else _NOTHING
        self._ts = event.ts
        handler = self._handlers.get(event.TYPE)
        if handler is None:
            self.problem(f"{event.TYPE} with no shoe on the table" if self.phase == NO_SHOE
                         else f"{event.TYPE} means nothing during {self.phase}")
        else:
            handler(self, event)
        self.events_applied += 1
        return out

    # -- what the handlers call, here and in the seams' modules -----------------------------
    def emit(self, kind: str, game: int | None, data: Any = None) -> None:
        """Report what happened (`Happened`), when the machine records."""
        if self.record:
            self._out.append(Happened(kind, self.shoe.shoe_id if self.shoe else None, game, data))

    def problem(self, message: str) -> None:
        """An event that means nothing where it came: kept in `problems`, reported ignored."""
        self.problems.append((self.events_applied, message))
        self.emit("ignored", None, message)

    def flag(self, game: Game | None, code: str, detail: str, once: bool = False) -> None:
        """Raise `code` on `game` (None: on the shoe); with `once`, not again (see Game.flag)."""
        flag = Flag.of(code, detail)
        if game is None:
            assert self.shoe is not None
            if once and any(f.code == code for f in self.shoe.flags):
                return
            self.shoe.flags.append(flag)
        elif not game.flag(flag, once):
            return
        self.emit("flag_raised", game.number if game else None, flag)

    def new_game(self) -> Game:
        """The shoe's next game, flagged if it comes after the last game."""
        shoe = self.shoe
        assert shoe is not None
        n = len(shoe.games) + 1
        house = shoe.house
        seven_up = house.variant == "7up"
        game = Game(n, seven_up, super7_offered=seven_up and n <= house.super7_window)
        shoe.games.append(game)
        if shoe.void_from is not None and n >= shoe.void_from:
            game.voided_by_shoe = True
        last = shoe.last_game
        if last is not None:
            if n == last:
                self._mark_last(game)
            elif n > last:
                self.flag(game, "DEAL_AFTER_LAST_GAME",
                          f"game {n} dealt after the last game ({last})" if last
                          else f"game {n} dealt after the yellow card ended the shoe")
        return game

    def _mark_last(self, game: Game) -> None:
        if not game.last_game:
            game.last_game = True
            self.flag(game, "LAST_GAME", f"game {game.number} is the last game of the shoe")

    def _set_last(self, number: int, why: str) -> None:
        shoe = self.shoe
        assert shoe is not None
        if shoe.last_game is not None and shoe.last_game <= number:
            return
        shoe.last_game = number
        for game in shoe.games[max(number - 1, 0):]:
            if game.number == number:
                self._mark_last(game)
            else:
                self.flag(game, "DEAL_AFTER_LAST_GAME",
                          f"game {game.number} dealt after the last game ({number}): {why}")

    def _start_game(self) -> None:
        """The next game's bets closed: it starts (or carries on with its early-dealt cards)."""
        shoe = self.shoe
        assert shoe is not None
        previous = shoe.current
        game = shoe.early or self.new_game()
        shoe.early = None
        game.bets_closed = True
        game.started_ts = self._ts
        shoe.current = game
        self.emit("game_started", game.number)
        if shoe.house.burn_after_each_game and previous is not None and previous.between_cards == 0:
            self.flag(game, "BURN_MISSING",
                      f"no card was burned between game {previous.number} and game {game.number}")
        self.phase = DEALING
        if game.complete:
            self.complete(game)

    def complete(self, game: Game) -> None:
        """`game`'s hand is complete: a held close starts the next game, else BETWEEN."""
        game.ended_ts = self._ts
        self.emit("game_completed", game.number)
        shoe = self.shoe
        assert shoe is not None
        if shoe.held:
            shoe.held -= 1
            self._start_game()
        else:
            self.phase = BETWEEN
            if shoe.finished:
                self.emit("shoe_finished", None)

    def _end_shoe(self) -> None:
        shoe = self.shoe
        assert shoe is not None
        game = shoe.current
        stopped = shoe.interrupted
        if self.phase == DEALING and game is not None and stopped is not None \
                and stopped[:2] == (game.number, len(game.cards)):
            self.flag(game, "INTERRUPTED",
                      f"game {game.number} was interrupted ({stopped[2]}) and did not continue")
        elif self.phase == DEALING and game is not None and game.expect_sure:
            self.flag(game, "MISSING_DRAW",
                      f"the shoe ended while game {game.number} still needed {game.expect}")
        if not shoe.finished:
            shoe.ended = True
            self.emit("shoe_finished", None)
        shoe.ended = True
        shoe.ended_ts = self._ts
        shoe.held = 0
        self.phase = NO_SHOE

    # -- handlers ---------------------------------------------------------------------------
    def on_new_shoe(self, e: ShoeLoaded) -> None:
        if self.shoe is not None and self.phase != NO_SHOE:
            self._end_shoe()
        self.shoe = Shoe(e.shoe_id or f"shoe-{len(self.shoes) + 1}", e.house, e.ts)
        self.shoes.append(self.shoe)
        self.phase = BURN
        self.emit("shoe_started", None, e.house)

    def on_end_shoe(self, e: ShoeEnded) -> None:
        self._end_shoe()

    def on_deal_card(self, e: CardDealt | UnreadableDealt) -> None:
        # The hot path of every audit: kept flat on purpose.
        shoe = self.shoe
        game = shoe.current  # type: ignore[union-attr]
        assert game is not None
        code = e.card if e.TYPE == "card" else UNREADABLE  # type: ignore[union-attr]
        pos = game.place(code)
        if self.record:
            self.emit("card_placed", game.number, (pos, code))
        if code == UNREADABLE or e.multi:
            card_flags(self, e, game, code, pos)
        else:
            counts = shoe.counts  # type: ignore[union-attr]
            n = counts[code] = counts.get(code, 0) + 1
            if n > shoe.house.decks:  # type: ignore[union-attr]
                count_over(self, code, game, n)
        if game.expect is None:
            self.complete(game)

    def on_first_bets_closed(self, e: BetsClosed) -> None:
        shoe = self.shoe
        assert shoe is not None
        required = shoe.burn_required
        if required is None or len(shoe.burn) < required:
            needed = "an unknown number of" if required is None and shoe.burn else str(required or "a")
            self.flag(None, "BURN_SHORT",
                      f"game 1 started after {len(shoe.burn)} burn card(s); the burn needs {needed}")
            shoe.void_from = 1
        self._start_game()

    def on_bets_closed_while_dealing(self, e: BetsClosed) -> None:
        shoe = self.shoe
        game = shoe.current  # type: ignore[union-attr]
        assert shoe is not None and game is not None
        if game.expect_sure:
            self.flag(game, "MISSING_DRAW",
                      f"bets closed for the next game while game {game.number} still needed {game.expect}")
            shoe.held += 1
        else:
            self._start_game()

    def on_bets_closed_between(self, e: BetsClosed) -> None:
        self._start_game()

    def on_cut_card(self, e: CutCardOut) -> None:
        shoe = self.shoe
        assert shoe is not None
        played = shoe.current.number if shoe.current is not None else 0
        if self.phase == DEALING:
            self._set_last(played, f"the {e.color} card came out during game {played}")
        elif e.color == "blue":
            self._set_last(played + 1, "the blue card came out between games")
        else:
            self._set_last(played, "the yellow card came out between games")
        if shoe.finished and self.phase != DEALING:
            self.emit("shoe_finished", None)

    def on_gap(self, e: FramesLost) -> None:
        shoe = self.shoe
        assert shoe is not None
        missing = "an unknown number of" if e.missing is None else str(e.missing)
        game = None if self.phase == BURN else shoe.current
        where = f"game {game.number}" if game else "the new-shoe burn"
        self.flag(game, "DATA_GAP", f"{missing} frame(s) from the shoe lost during {where}")

    def on_reveal(self, e: CardsRevealed) -> None:
        game = self.shoe.current if self.shoe else None
        if game is None:
            return
        side = {"player": "P", "banker": "B"}.get(e.side or "", "")
        game.reveal(p for p, _ in game.cards if p.startswith(side))
        self.emit("card_placed", game.number, ("revealed", e.side or "all"))

    def on_interrupted(self, e: Interrupted) -> None:
        """Noted against the game being dealt and its cards so far (the first reason stands
        while no card comes): `_end_shoe` tells whether the game continued."""
        shoe = self.shoe
        if self.phase != DEALING or shoe is None or shoe.current is None:
            return
        mark = (shoe.current.number, len(shoe.current.cards))
        if shoe.interrupted is None or shoe.interrupted[:2] != mark:
            shoe.interrupted = (*mark, e.reason)

    def on_noted(self, e: Noted) -> None:
        self.emit("ignored", None, e.kind)


_H = Callable[[TableMachine, Any], None]
TRANSITIONS: dict[tuple[str, str], _H] = {
    (ANY, "new_shoe"): TableMachine.on_new_shoe,
    (BURN, "end_shoe"): TableMachine.on_end_shoe,
    (DEALING, "end_shoe"): TableMachine.on_end_shoe,
    (BETWEEN, "end_shoe"): TableMachine.on_end_shoe,
    (BURN, "card"): shoe_cards.burn_card,
    (BURN, "unreadable"): shoe_cards.burn_card,
    (DEALING, "card"): TableMachine.on_deal_card,
    (DEALING, "unreadable"): TableMachine.on_deal_card,
    (BETWEEN, "card"): shoe_cards.between_card,
    (BETWEEN, "unreadable"): shoe_cards.between_card,
    (BURN, "bets_closed"): TableMachine.on_first_bets_closed,
    (DEALING, "bets_closed"): TableMachine.on_bets_closed_while_dealing,
    (BETWEEN, "bets_closed"): TableMachine.on_bets_closed_between,
    (BURN, "cut_card"): TableMachine.on_cut_card,
    (DEALING, "cut_card"): TableMachine.on_cut_card,
    (BETWEEN, "cut_card"): TableMachine.on_cut_card,
    (BURN, "gap"): TableMachine.on_gap,
    (DEALING, "gap"): TableMachine.on_gap,
    (BETWEEN, "gap"): TableMachine.on_gap,
    (BURN, "reveal"): TableMachine.on_reveal,
    (DEALING, "reveal"): TableMachine.on_reveal,
    (BETWEEN, "reveal"): TableMachine.on_reveal,
    (BURN, "card_seen"): camera_sightings.card_seen,
    (DEALING, "card_seen"): camera_sightings.card_seen,
    (BETWEEN, "card_seen"): camera_sightings.card_seen,
    (BURN, "card_lost"): camera_sightings.card_lost,
    (DEALING, "card_lost"): camera_sightings.card_lost,
    (BETWEEN, "card_lost"): camera_sightings.card_lost,
    (ANY, "decision"): rulings.decision,
    (ANY, "noted"): TableMachine.on_noted,
    (ANY, "interrupted"): TableMachine.on_interrupted,
}

#: TRANSITIONS by phase, the ANY rows copied into each (the lookup `apply` makes).
_BY_PHASE: dict[str, dict[str, _H]] = {
    phase: {t: h for (p, t), h in TRANSITIONS.items() if p in (phase, ANY)}
    for phase in (NO_SHOE, BURN, DEALING, BETWEEN)
}
