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
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from dealer_assist.domain.cards import burn_value
from dealer_assist.domain.events import (
    BetsClosed,
    CardDealt,
    CardLost,
    CardSeen,
    CardsRevealed,
    CutCardOut,
    DecisionMade,
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
from dealer_assist.domain.rules import POSITION_OF_ZONE
from dealer_assist.domain.shoe import Shoe

NO_SHOE, BURN, DEALING, BETWEEN = "no_shoe", "burn", "dealing", "between"
ANY = "*"


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
            self._problem(f"{event.TYPE} with no shoe on the table" if self.phase == NO_SHOE
                          else f"{event.TYPE} means nothing during {self.phase}")
        else:
            handler(self, event)
        self.events_applied += 1
        return out

    # -- helpers ----------------------------------------------------------------------------
    def _emit(self, kind: str, game: int | None, data: Any = None) -> None:
        if self.record:
            self._out.append(Happened(kind, self.shoe.shoe_id if self.shoe else None, game, data))

    def _problem(self, message: str) -> None:
        self.problems.append((self.events_applied, message))
        self._emit("ignored", None, message)

    def _flag(self, game: Game | None, code: str, detail: str, once: bool = False) -> None:
        flag = Flag.of(code, detail)
        if game is None:
            assert self.shoe is not None
            if once and any(f.code == code for f in self.shoe.flags):
                return
            self.shoe.flags.append(flag)
        elif not game.flag(flag, once):
            return
        self._emit("flag_raised", game.number if game else None, flag)

    def _count(self, code: str, game: Game | None) -> None:
        shoe = self.shoe
        assert shoe is not None
        if code == UNREADABLE:
            return
        n = shoe.counts.get(code, 0) + 1
        shoe.counts[code] = n
        if n > shoe.house.decks:
            self._count_over(code, game, n)

    def _count_over(self, code: str, game: Game | None, n: int) -> None:
        decks = self.shoe.house.decks  # type: ignore[union-attr]
        self._flag(game, "FOREIGN_CARD", f"{code} is copy {n} from a shoe of {decks} deck(s)")

    def _new_game(self) -> Game:
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
                self._flag(game, "DEAL_AFTER_LAST_GAME",
                           f"game {n} dealt after the last game ({last})" if last
                           else f"game {n} dealt after the yellow card ended the shoe")
        return game

    def _mark_last(self, game: Game) -> None:
        if not game.last_game:
            game.last_game = True
            self._flag(game, "LAST_GAME", f"game {game.number} is the last game of the shoe")

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
                self._flag(game, "DEAL_AFTER_LAST_GAME",
                           f"game {game.number} dealt after the last game ({number}): {why}")

    def _start_game(self) -> None:
        """The next game's bets closed: it starts (or carries on with its early-dealt cards)."""
        shoe = self.shoe
        assert shoe is not None
        previous = shoe.current
        game = shoe.early or self._new_game()
        shoe.early = None
        game.bets_closed = True
        game.started_ts = self._ts
        shoe.current = game
        self._emit("game_started", game.number)
        if shoe.house.burn_after_each_game and previous is not None and previous.between_cards == 0:
            self._flag(game, "BURN_MISSING",
                       f"no card was burned between game {previous.number} and game {game.number}")
        self.phase = DEALING
        if game.complete:
            self._complete(game)

    def _complete(self, game: Game) -> None:
        game.ended_ts = self._ts
        self._emit("game_completed", game.number)
        shoe = self.shoe
        assert shoe is not None
        if shoe.held:
            shoe.held -= 1
            self._start_game()
        else:
            self.phase = BETWEEN
            if shoe.finished:
                self._emit("shoe_finished", None)

    def _end_shoe(self) -> None:
        shoe = self.shoe
        assert shoe is not None
        game = shoe.current
        stopped = shoe.interrupted
        if self.phase == DEALING and game is not None and stopped is not None \
                and stopped[:2] == (game.number, len(game.cards)):
            self._flag(game, "INTERRUPTED",
                       f"game {game.number} was interrupted ({stopped[2]}) and did not continue")
        elif self.phase == DEALING and game is not None and game.expect_sure:
            self._flag(game, "MISSING_DRAW",
                       f"the shoe ended while game {game.number} still needed {game.expect}")
        if not shoe.finished:
            shoe.ended = True
            self._emit("shoe_finished", None)
        shoe.ended = True
        shoe.ended_ts = self._ts
        shoe.held = 0
        self.phase = NO_SHOE

    def _games_on_layout(self) -> list[Game]:
        """Games whose cards may lie on the layout: being dealt, just completed, dealt early."""
        shoe = self.shoe
        assert shoe is not None
        games = []
        if shoe.current is not None:
            games.append(shoe.current)
            if self.phase == DEALING and shoe.current.number > 1:
                games.append(shoe.games[shoe.current.number - 2])
        if shoe.early is not None:
            games.append(shoe.early)
        return games

    # -- handlers ---------------------------------------------------------------------------
    def on_new_shoe(self, e: ShoeLoaded) -> None:
        if self.shoe is not None and self.phase != NO_SHOE:
            self._end_shoe()
        self.shoe = Shoe(e.shoe_id or f"shoe-{len(self.shoes) + 1}", e.house, e.ts)
        self.shoes.append(self.shoe)
        self.phase = BURN
        self._emit("shoe_started", None, e.house)

    def on_end_shoe(self, e: ShoeEnded) -> None:
        self._end_shoe()

    def on_burn_card(self, e: CardDealt | UnreadableDealt) -> None:
        shoe = self.shoe
        assert shoe is not None
        code = e.card if isinstance(e, CardDealt) else UNREADABLE
        shoe.burn.append(code)
        self._emit("card_placed", None, ("burn", code))
        self._count(code, None)
        if len(shoe.burn) == 1:
            if code == UNREADABLE:
                self._flag(None, "UNREADABLE_CARD", "the burn's face-up card could not be read")
            else:
                shoe.burn_required = 1 + burn_value(code, shoe.house.ace_burns)
        elif shoe.burn_required is not None and len(shoe.burn) > shoe.burn_required:
            self._flag(None, "BURN_EXCESS",
                       f"the burn needs {shoe.burn_required} cards; more came out", once=True)

    def on_deal_card(self, e: CardDealt | UnreadableDealt) -> None:
        # The hot path of every audit: kept flat on purpose.
        shoe = self.shoe
        game = shoe.current  # type: ignore[union-attr]
        assert game is not None
        code = e.card if e.TYPE == "card" else UNREADABLE  # type: ignore[union-attr]
        pos = game.place(code)
        if self.record:
            self._emit("card_placed", game.number, (pos, code))
        if code == UNREADABLE or e.multi:
            self._card_flags(e, game, code, pos)
        else:
            counts = shoe.counts  # type: ignore[union-attr]
            n = counts[code] = counts.get(code, 0) + 1
            if n > shoe.house.decks:  # type: ignore[union-attr]
                self._count_over(code, game, n)
        if game.expect is None:
            self._complete(game)

    def _card_flags(self, e: CardDealt | UnreadableDealt, game: Game, code: str, where: str) -> None:
        if code == UNREADABLE:
            self._flag(game, "UNREADABLE_CARD", f"the card at {where} could not be read")
        elif e.multi:
            self._flag(game, "MULTI_PULL", f"{code} ({where}) came out together with the card before it")
        self._count(code, game if where not in ("burn", "set_aside") else None)

    def on_between_card(self, e: CardDealt | UnreadableDealt) -> None:
        shoe = self.shoe
        assert shoe is not None and shoe.current is not None
        previous = shoe.current
        code = e.card if isinstance(e, CardDealt) else UNREADABLE
        previous.between_cards += 1
        surplus = previous.between_cards - (1 if shoe.house.burn_after_each_game else 0)
        if surplus <= 0:
            self._emit("card_placed", previous.number, ("burn", code))
            self._card_flags(e, previous, code, "burn")
            return
        if surplus == 1 or (shoe.early is not None and shoe.early.complete):
            target = shoe.early if surplus > 1 else previous
            assert target is not None
            target.set_aside.append(code)
            self._emit("card_placed", target.number, ("set_aside", code))
            self._flag(target, "UNNEEDED_DRAW",
                       f"{code} came out after game {target.number} was complete; set aside", once=True)
            self._card_flags(e, target, code, "set_aside")
            return
        game = shoe.early
        if game is None:
            game = shoe.early = self._new_game()
            self._flag(game, "EARLY_DEAL", f"game {game.number} received cards before its bets closed")
        pos = game.place(code)
        self._emit("card_placed", game.number, (pos, code))
        self._card_flags(e, game, code, pos)

    def on_first_bets_closed(self, e: BetsClosed) -> None:
        shoe = self.shoe
        assert shoe is not None
        required = shoe.burn_required
        if required is None or len(shoe.burn) < required:
            needed = "an unknown number of" if required is None and shoe.burn else str(required or "a")
            self._flag(None, "BURN_SHORT",
                       f"game 1 started after {len(shoe.burn)} burn card(s); the burn needs {needed}")
            shoe.void_from = 1
        self._start_game()

    def on_bets_closed_while_dealing(self, e: BetsClosed) -> None:
        shoe = self.shoe
        game = shoe.current  # type: ignore[union-attr]
        assert shoe is not None and game is not None
        if game.expect_sure:
            self._flag(game, "MISSING_DRAW",
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
            self._emit("shoe_finished", None)

    def on_gap(self, e: FramesLost) -> None:
        shoe = self.shoe
        assert shoe is not None
        missing = "an unknown number of" if e.missing is None else str(e.missing)
        game = None if self.phase == BURN else shoe.current
        where = f"game {game.number}" if game else "the new-shoe burn"
        self._flag(game, "DATA_GAP", f"{missing} frame(s) from the shoe lost during {where}")

    def on_reveal(self, e: CardsRevealed) -> None:
        game = self.shoe.current if self.shoe else None
        if game is None:
            return
        side = {"player": "P", "banker": "B"}.get(e.side or "", "")
        game.reveal(p for p, _ in game.cards if p.startswith(side))
        self._emit("card_placed", game.number, ("revealed", e.side or "all"))

    def on_card_seen(self, e: CardSeen) -> None:
        if e.zone == "discard" or self.phase == BURN or e.card is None:
            return
        pos = POSITION_OF_ZONE[e.zone]
        games = self._games_on_layout()
        for game in games:
            at = game.position_of(e.card, seen_at=pos)
            if at is None:
                continue
            if at != pos:
                self._flag(game, "WRONG_POSITION",
                           f"{e.card} belongs at {at} but lies in {e.zone}", once=True)
            if e.face == "up":
                game.reveal((at,))
                if game is self.shoe.early:  # type: ignore[union-attr]
                    self._flag(game, "EXPOSED_DURING_BETTING",
                               f"{e.card} ({at}) lay face up before bets closed", once=True)
            return
        if not games:
            return
        current = games[0]
        if dict(current.cards).get(pos) == UNREADABLE:
            return
        self._flag(current, "CARD_MISMATCH",
                   f"the camera saw {e.card} in {e.zone}; the shoe dealt "
                   f"{dict(current.cards).get(pos, 'no card there')}", once=True)

    def on_card_lost(self, e: CardLost) -> None:
        if e.zone == "discard" or self.phase == BURN:
            return
        games = self._games_on_layout()
        pos = POSITION_OF_ZONE[e.zone]
        for game in games:
            at = game.position_of(e.card, seen_at=pos) if e.card else (pos if pos in dict(game.cards) else None)
            if at is None:
                continue
            collected = game.complete and all(p in game.revealed for p, _ in game.cards)
            if collected or (game is not self.shoe.current and game is not self.shoe.early):  # type: ignore[union-attr]
                return
            card = dict(game.cards)[at]
            if e.opened:
                self._flag(game, "DROPPED_OPENED", f"{card} ({at}) was opened and left the camera's view")
            else:
                self._flag(game, "CARD_OUT_OF_VIEW", f"{card} ({at}) left the camera's view unopened")
            return

    def on_decision(self, e: DecisionMade) -> None:
        shoe = self.shoe
        if e.shoe_id is not None:
            shoe = next((s for s in reversed(self.shoes) if s.shoe_id == e.shoe_id), None)
        game = shoe.game(e.game) if shoe else None
        if shoe is None or game is None:
            where = f"shoe {e.shoe_id}" if e.shoe_id else "the current shoe"
            self._problem(f"decision for game {e.game}, which {where} does not have")
            return
        if e.action == "void_shoe":
            shoe.void_from = min(shoe.void_from or e.game, e.game)
            for g in shoe.games[e.game - 1:]:
                g.voided_by_shoe = True
                g.decided_upto = len(g.flags)
        else:
            game.ruling = e.action
            game.decided_upto = len(game.flags)
            if e.action == "correct":
                game.replace_cards(e.player, e.banker)
        self._emit("decision_applied", game.number, e)
        if (e.action == "correct" and shoe is self.shoe and game is shoe.current
                and self.phase == DEALING and game.complete):
            self._complete(game)

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
        self._emit("ignored", None, e.kind)


_H = Callable[[TableMachine, Any], None]
TRANSITIONS: dict[tuple[str, str], _H] = {
    (ANY, "new_shoe"): TableMachine.on_new_shoe,
    (BURN, "end_shoe"): TableMachine.on_end_shoe,
    (DEALING, "end_shoe"): TableMachine.on_end_shoe,
    (BETWEEN, "end_shoe"): TableMachine.on_end_shoe,
    (BURN, "card"): TableMachine.on_burn_card,
    (BURN, "unreadable"): TableMachine.on_burn_card,
    (DEALING, "card"): TableMachine.on_deal_card,
    (DEALING, "unreadable"): TableMachine.on_deal_card,
    (BETWEEN, "card"): TableMachine.on_between_card,
    (BETWEEN, "unreadable"): TableMachine.on_between_card,
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
    (BURN, "card_seen"): TableMachine.on_card_seen,
    (DEALING, "card_seen"): TableMachine.on_card_seen,
    (BETWEEN, "card_seen"): TableMachine.on_card_seen,
    (BURN, "card_lost"): TableMachine.on_card_lost,
    (DEALING, "card_lost"): TableMachine.on_card_lost,
    (BETWEEN, "card_lost"): TableMachine.on_card_lost,
    (ANY, "decision"): TableMachine.on_decision,
    (ANY, "noted"): TableMachine.on_noted,
    (ANY, "interrupted"): TableMachine.on_interrupted,
}

#: TRANSITIONS by phase, the ANY rows copied into each (the lookup `apply` makes).
_BY_PHASE: dict[str, dict[str, _H]] = {
    phase: {t: h for (p, t), h in TRANSITIONS.items() if p in (phase, ANY)}
    for phase in (NO_SHOE, BURN, DEALING, BETWEEN)
}
