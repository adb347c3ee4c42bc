"""A shoe as the table machine builds it: its settings, the new-shoe burn, its games."""

from __future__ import annotations

from dealer_assist.domain.flags import Flag
from dealer_assist.domain.game import Game
from dealer_assist.domain.house import HouseRules


class Shoe:
    """A shoe's record. The table machine is the only writer."""

    __slots__ = (
        "shoe_id", "house", "burn", "burn_required", "flags", "games", "current", "early",
        "counts", "last_game", "void_from", "ended", "held", "started_ts", "ended_ts",
        "interrupted",
    )

    def __init__(self, shoe_id: str, house: HouseRules, ts: str | None = None) -> None:
        self.shoe_id = shoe_id
        self.house = house
        #: The new-shoe burn: the face-up first card, then the cards it burns.
        self.burn: list[str] = []
        #: Cards the new-shoe burn takes, the face-up one included (None until it is read).
        self.burn_required: int | None = None
        #: Flags that concern no single game.
        self.flags: list[Flag] = []
        #: Games by number (game n at index n - 1), including a next game dealt early.
        self.games: list[Game] = []
        #: The latest game whose bets closed: being dealt, or just completed.
        self.current: Game | None = None
        #: The next game when it has received cards before its bets closed.
        self.early: Game | None = None
        #: Copies of each card code out of the shoe so far.
        self.counts: dict[str, int] = {}
        #: Number of the shoe's last game once a cut card says it (0: no game may be dealt).
        self.last_game: int | None = None
        #: Games from this number on are void (shoe_void flag or void_shoe decision).
        self.void_from: int | None = None
        self.ended = False
        #: bets_closed presses held while the current game still needs a card.
        self.held = 0
        self.started_ts = ts
        self.ended_ts: str | None = None
        #: The system's interruption of the game being dealt, until it continues: (the game's
        #: number, its cards then, the `interrupted` event's reason). None: none pending.
        self.interrupted: tuple[int, int, str] | None = None

    @property
    def burn_remaining(self) -> int | None:
        if self.burn_required is None:
            return None
        return max(0, self.burn_required - len(self.burn))

    @property
    def finished(self) -> bool:
        if self.ended:
            return True
        last = self.last_game
        if last is None:
            return False
        if last == 0:
            return True
        if last > len(self.games):
            return False
        game = self.games[last - 1]
        return game.bets_closed and (game.complete or game.void)

    @property
    def status(self) -> str:
        if self.void_from is not None:
            return "void"
        return "finished" if self.finished else "open"

    def game(self, number: int) -> Game | None:
        return self.games[number - 1] if 0 < number <= len(self.games) else None
