"""The steps of a deal and their pace: what each trace event is at the table, and when.

Each event of a dealt shoe is also a step (`DealtShoe.steps`): what kind of step it is at the
table (a burn card, betting, a game card, a card between games, the cut card...) and whether
the dealer presses REVEAL after it (the squeeze: once a game's first cards are out, 3 in `7up`
else 4, and after each third card). `PACE` times every kind of step, both in a dealt trace's
timestamps (`TraceClock`) and on the built-in shoe.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import NamedTuple

# The kinds of step in a deal: one per trace event, but SQUEEZE and SHUFFLE, which only the
# built-in shoe plays (the REVEAL press after a game's first cards; the pause between shoes).
NEW_SHOE = "new_shoe"
BURN_CARD = "burn_card"
BETTING = "betting"
EARLY_CLOSE = "early_close"
GAME_CARD = "game_card"
BETWEEN_GAMES = "between_games"
CUT_CARD = "cut_card"
REVEAL = "reveal"
END_SHOE = "end_shoe"
SQUEEZE = "squeeze"
SHUFFLE = "shuffle"


class Pace(NamedTuple):
    """The pause before a kind of step: in a dealt trace's timestamps, and on the built-in
    shoe at speed 1 (a livelier table than the traces record)."""

    trace_ms: int
    live_s: float


#: The pace of a deal, by kind of step. In a dealt trace the cut card comes out when its card
#: was due, and that card follows at a game card's pace; the built-in shoe gives the cut card
#: its own pause. EARLY_CLOSE is the `missed_draw` dealer closing bets before the third card.
PACE = {
    NEW_SHOE: Pace(0, 0.0),
    BURN_CARD: Pace(1_500, 1.2),
    BETTING: Pace(20_000, 12.0),
    EARLY_CLOSE: Pace(1_800, 12.0),
    GAME_CARD: Pace(1_800, 1.6),
    BETWEEN_GAMES: Pace(4_000, 3.0),
    CUT_CARD: Pace(0, 1.0),
    REVEAL: Pace(1_800, 3.0),
    END_SHOE: Pace(4_000, 3.0),
    SQUEEZE: Pace(0, 3.0),
    SHUFFLE: Pace(0, 8.0),
}


class DealtStep(NamedTuple):
    """What a trace event is at the table (a kind in `PACE`), and whether the dealer presses
    REVEAL after it."""

    kind: str
    squeeze: bool = False


#: The steps with no REVEAL after them, by kind, shared by every deal.
STEPS = {kind: DealtStep(kind) for kind in PACE}
#: A game card after which the dealer reveals (the squeeze, or a third card).
SQUEEZED_CARD = DealtStep(GAME_CARD, squeeze=True)


class TraceClock:
    """Event times: `start` plus a running offset, formatted as trace `ts` (UTC, ms, Z)."""

    __slots__ = ("ms", "_start_ms", "_day", "_day_text")

    def __init__(self, start: datetime) -> None:
        if start.tzinfo is not None:
            start = start.astimezone(UTC).replace(tzinfo=None)
        midnight = start.replace(hour=0, minute=0, second=0, microsecond=0)
        self._start_ms = (start - midnight) // timedelta(milliseconds=1)
        self._day = midnight
        self._day_text = midnight.strftime("%Y-%m-%dT")
        self.ms = 0

    def ts(self, kind: str) -> str:
        """The time of the next step of `kind`, at its pace after the last one."""
        return self.after(PACE[kind].trace_ms)

    def after(self, step_ms: int) -> str:
        """The time `step_ms` after the last one."""
        self.ms += step_ms
        t = self._start_ms + self.ms
        if t >= 86_400_000:  # past midnight: move the day on
            days, t = divmod(t, 86_400_000)
            self._day += timedelta(days=days)
            self._day_text = self._day.strftime("%Y-%m-%dT")
            self._start_ms -= days * 86_400_000
        s, ms = divmod(t, 1000)
        m, s = divmod(s, 60)
        h, m = divmod(m, 60)
        return f"{self._day_text}{h:02d}:{m:02d}:{s:02d}.{ms:03d}Z"
